public import ObjectGraph

extension JSONValue {
  /// The line `context-watch replay` and `pg-watch watch` print for a save:
  /// `{"save", "position"?, "inserted", "updated", "deleted"}`, objects
  /// sorted by ref.
  ///
  /// An inserted or deleted object is `{"ref", "entity", "values"}`, with
  /// every value of the snapshot; an updated one is `{"ref", "entity",
  /// "changed": {KEY: …}}`, each changed key `{"old", "new"}` for an
  /// attribute or a to-one relationship (a ref or null) and `{"added",
  /// "removed"}` refs for a to-many relationship, so that a set growing by
  /// one member per save prints one ref per save, not the whole set.
  /// Attribute values follow the JSON conventions of the watches file
  /// (`{"$date": seconds}`, `{"$set": […]}`, …).
  ///
  /// ```swift
  /// JSONValue(save: save, position: "0/16B3F40", ref: { names[$0] ?? $0.description }).serialized
  /// // {"save":1,"position":"0/16B3F40","inserted":[{"ref":"ann","entity":"Person",
  /// //   "values":{"name":"Ann","age":34}}],"updated":[],"deleted":[]}
  /// ```
  ///
  /// - Parameters:
  ///   - save: The save.
  ///   - position: Where the save stands in its source, such as a
  ///     database's commit position; written after `"save"` when given.
  ///   - ref: The name of an object in the line: the caller's ref, or a
  ///     primary key.
  /// - Complexity: O(*n* log *n*) in the save's objects and changed keys.
  ///   Every relationship has an inverse, so an object joins or leaves a
  ///   to-many relationship only when its own inverse changes in the same
  ///   save: the members added and removed are among the save's objects,
  ///   and when those are fewer than the set's members only they are looked
  ///   up. A count that does not add up falls back to comparing the whole
  ///   sets.
  public init(save: ContextSave, position: String? = nil, ref: (ObjectID) -> String) {
    let touched = Set(save.inserted.map(\.objectID) + save.updated.map(\.objectID) + save.deleted.map(\.objectID))
    func json(_ value: PropertyValue) -> JSONValue {
      switch value {
      case .attribute(let value): JSONValue(value)
      case .relationship(.toOne(let id)): id.map { .string(ref($0)) } ?? .null
      case .relationship(.toMany(let ids)): refList(ids)
      }
    }
    func refList(_ ids: some Sequence<ObjectID>) -> JSONValue {
      .array(ids.map(ref).sorted().map(JSONValue.string))
    }
    func change(_ old: PropertyValue, _ new: PropertyValue) -> JSONValue {
      guard case .relationship(.toMany(let before)) = old, case .relationship(.toMany(let after)) = new else {
        return .object([("old", json(old)), ("new", json(new))])
      }
      var added: [ObjectID] = []
      var removed: [ObjectID] = []
      let scanTouched = touched.count < before.count + after.count
      if scanTouched {
        for id in touched {
          switch (before.contains(id), after.contains(id)) {
          case (false, true): added.append(id)
          case (true, false): removed.append(id)
          default: break
          }
        }
      }
      if !scanTouched || added.count - removed.count != after.count - before.count {
        added = Array(after.subtracting(before))
        removed = Array(before.subtracting(after))
      }
      return .object([("added", refList(added)), ("removed", refList(removed))])
    }
    func object(_ snapshot: ObjectSnapshot) -> (String, JSONValue) {
      let name = ref(snapshot.objectID)
      let values = JSONValue.object(snapshot.keys.compactMap { key in snapshot.property(key).map { (key, json($0)) } })
      return (name, .object([("ref", .string(name)), ("entity", .string(snapshot.entityName)), ("values", values)]))
    }
    let updated = save.updated.map { update in
      let name = ref(update.objectID)
      return (
        name,
        JSONValue.object([
          ("ref", .string(name)), ("entity", .string(update.after.entityName)),
          ("changed", .object(update.changes.map { ($0.key, change($0.old, $0.new)) })),
        ])
      )
    }
    func sorted(_ items: [(String, JSONValue)]) -> JSONValue { .array(items.sorted { $0.0 < $1.0 }.map(\.1)) }
    self = .object(
      [("save", .int(Int64(save.sequenceNumber)))] + (position.map { [("position", .string($0))] } ?? [])
        + [
          ("inserted", sorted(save.inserted.map(object))), ("updated", sorted(updated)),
          ("deleted", sorted(save.deleted.map(object))),
        ])
  }
}
