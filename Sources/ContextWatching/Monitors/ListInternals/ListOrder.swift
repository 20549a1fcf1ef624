import Foundation
import ObjectGraph
import PredicateDSL

/// A ``ListRequest``'s sort and section keys resolved against the schema:
/// the strict total order of a list (sort keys, then object identifier) and
/// its sections.
final class ListOrder: Sendable {
  /// Where a sort key's value comes from.
  enum Source: Hashable, Sendable {
    /// An attribute of the listed entity, at this slot in every layout of
    /// the entity and its sub-entities (inherited attributes come first).
    case attribute(Int)
    /// A key path through to-one relationships: the object's derived
    /// values (``ListEdit/derived``, ``ListDerivedValues``) at this index.
    case path(Int)
  }

  /// A key path through to-one relationships to an attribute.
  struct Path: Sendable {
    /// The key path as written: `department.name`.
    let keyPath: String
    /// The relationships followed, as (slot in the entity stepped from,
    /// the entity stepped to); then the attribute's slot in the last one.
    let steps: [(slot: Int, destination: EntityLayout)]
    let attributeSlot: Int
    /// For each step, the inverse relationship's name and the entity it
    /// starts from: the way back from a changed far object to the listed
    /// objects that read it.
    let inverseSteps: [(entity: EntityLayout, slot: Int)]
    /// For each step's destination, the key whose change moves the value:
    /// the next relationship, or the attribute at the end.
    let keysRead: [String]
  }

  /// The listed entity (objects of its sub-entities are listed too).
  let entity: EntityLayout
  let keys: [(source: Source, ascending: Bool)]
  let paths: [Path]
  /// The values through ``paths`` of the objects the list holds; nil when
  /// the order reads no relationship.
  let derived: ListDerivedValues?
  /// Whether the list has sections; their value is the first sort key's.
  let isSectioned: Bool

  /// Resolves `request` against `schema`.
  ///
  /// A sort key repeated after its first occurrence is dropped: objects
  /// that tie on the first occurrence tie on every later one, whatever its
  /// direction, so it adds nothing to the order, and the list reads each
  /// key once.
  ///
  /// - Throws: ``WatchError`` naming the key for an unknown key, a key of a
  ///   type without an order, a to-many step, no sort key, more distinct
  ///   sort keys than ``ListRequest/maximumSortKeyCount``, a section key
  ///   that is not the first sort key, or a negative limit or offset.
  /// - Complexity: O(*k*) in the sort keys to drop repeats, before any is
  ///   resolved.
  init(_ request: ListRequest, schema: ObjectSchema) throws(WatchError) {
    let label = request.displayLabel
    guard let layout = schema.layout(named: request.entity) else {
      throw WatchError(
        .unknownEntity, watch: label, entity: request.entity,
        message:
          "unknown entity '\(request.entity)' (entities: \(schema.entities.map(\.name).joined(separator: ", ")))")
    }
    guard let first = request.sortKeys.first else {
      throw WatchError(
        .invalidOptions, watch: label, entity: request.entity,
        message: "a list needs at least one sort key (ties are then broken by object identifier)")
    }
    if let sectionKey = request.sectionKey, sectionKey != first.key {
      throw WatchError(
        .invalidOptions, watch: label, entity: request.entity, key: sectionKey,
        message:
          "the section key '\(sectionKey)' must be the first sort key (it is '\(first.key)'): sections appear in the order of their first object, so the sort must group them"
      )
    }
    if let limit = request.limit, limit < 0 {
      throw WatchError(
        .invalidOptions, watch: label, entity: request.entity, message: "a list's limit cannot be negative (\(limit))")
    }
    if request.offset < 0 {
      throw WatchError(
        .invalidOptions, watch: label, entity: request.entity,
        message: "a list's offset cannot be negative (\(request.offset))")
    }
    var seen: Set<String> = []
    let sortKeys = request.sortKeys.filter { seen.insert($0.key).inserted }
    let maximum = ListRequest.maximumSortKeyCount
    guard sortKeys.count <= maximum else {
      throw WatchError(
        .invalidOptions, watch: label, entity: request.entity, key: sortKeys[maximum].key,
        message:
          "the list has \(sortKeys.count) distinct sort keys, more than the limit of \(maximum); a repeated key counts once, and '\(sortKeys[maximum].key)' is the first past the limit"
      )
    }
    var keys: [(Source, Bool)] = []
    var paths: [Path] = []
    for sortKey in sortKeys {
      let components = sortKey.key.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
      var entity = layout
      var steps: [(Int, EntityLayout)] = []
      var inverseSteps: [(EntityLayout, Int)] = []
      var keysRead: [String] = []
      for (position, component) in components.enumerated() {
        let isLast = position == components.count - 1
        switch entity.slot(component) {
        case .attribute(let slot) where isLast:
          let type = entity.attributes[slot].type
          guard type != .uuid && type != .data else {
            throw WatchError(
              .invalidOptions, watch: label, entity: request.entity, key: sortKey.key,
              message: "\(entity.name).\(component) is a \(type.rawValue) attribute, which has no order")
          }
          if steps.isEmpty {
            keys.append((.attribute(slot), sortKey.ascending))
          } else {
            keys.append((.path(paths.count), sortKey.ascending))
            paths.append(
              Path(
                keyPath: sortKey.key, steps: steps, attributeSlot: slot, inverseSteps: inverseSteps,
                keysRead: keysRead + [component]))
          }
        case .relationship(let slot) where !isLast:
          let relationship = entity.relationships[slot]
          guard !relationship.isToMany else {
            throw WatchError(
              .invalidOptions, watch: label, entity: request.entity, key: sortKey.key,
              message:
                "\(entity.name).\(component) is a to-many relationship: a sort key follows to-one relationships only")
          }
          let destination = schema.layout(named: relationship.description.destination)!
          if !steps.isEmpty { keysRead.append(component) }
          steps.append((slot, destination))
          inverseSteps.append((destination, relationship.inverseSlot))
          entity = destination
        case .relationship where isLast:
          throw WatchError(
            .invalidOptions, watch: label, entity: request.entity, key: sortKey.key,
            message:
              "\(entity.name).\(component) is a relationship: a sort or section key ends at an attribute (\(sortKey.key).name, say)"
          )
        case .attribute where !isLast:
          throw WatchError(
            .invalidOptions, watch: label, entity: request.entity, key: sortKey.key,
            message:
              "\(entity.name).\(component) is an attribute: a key path goes on through relationships only (in the sort key '\(sortKey.key)')"
          )
        default:
          let what = isLast ? "attribute" : "to-one relationship"
          throw WatchError(
            .unknownKey, watch: label, entity: request.entity, key: sortKey.key,
            message: "\(entity.name) has no \(what) '\(component)' (in the sort key '\(sortKey.key)')")
        }
      }
    }
    entity = layout
    self.keys = keys
    self.paths = paths
    isSectioned = request.sectionKey != nil
    derived = paths.isEmpty ? nil : ListDerivedValues()
  }

  /// A listed object with its sort values encoded, `derived` being its
  /// values through ``paths`` (which the list keeps apart, in ``derived``,
  /// once it holds the object).
  ///
  /// Takes the snapshot over, so that a caller handing in a temporary (a
  /// save's snapshot) retains nothing for it.
  func listed(_ snapshot: consuming ObjectSnapshot, derived: [FilterValue]) -> ListedObject {
    var object = ListedObject(snapshot: snapshot, key: ListSortKey(first: 0, second: 0))
    func word(_ index: Int) -> UInt64 {
      let value: FilterValue
      switch keys[index].source {
      case .attribute(let slot): value = object.snapshot.values[slot]
      case .path(let path): value = derived[path]
      }
      return ListSortKey.word(value, ascending: keys[index].ascending)
    }
    object.key = ListSortKey(first: word(0), second: keys.count > 1 ? word(1) : 0)
    return object
  }

  /// The value where sort key `source` reads it of the object `id` the
  /// list holds, whose own ``ListSortValues/sortValue(_:)`` is nil: its
  /// derived value, in ``derived``.
  ///
  /// The order's comparisons read an object's sort values through
  /// ``ListSortValues/sortValue(_:in:)``, a method called on the object in
  /// place: passing the object to a function of the order would copy it
  /// (its references retained and released).
  @inline(never)
  func listedValue(_ source: Source, of id: ObjectID) -> FilterValue {
    guard case .path(let path) = source else { preconditionFailure("an attribute's value is the object's own") }
    guard let derived else { preconditionFailure("an order without key paths has no derived values") }
    return derived.value(of: id, path: path)
  }

  /// A probe for the listed object `id` whose values and derived values
  /// are `values` and `derived` (see ``ListProbe``); `known`, when given,
  /// must be those values' encoding, which is then not computed again.
  /// Used only inside the call that made the buffers (invariant 8 in
  /// Support/OrderStatisticTree/OrderStatisticTree.swift).
  ///
  /// `like`, when given, is an edit of the same object: where the edit has
  /// an object, each word whose key has an identical value in both is
  /// taken from its key instead of being encoded again.
  func probe(
    _ id: ObjectID, values: UnsafeBufferPointer<FilterValue>, derived: UnsafeBufferPointer<FilterValue>,
    key known: ListSortKey? = nil, like other: UnsafePointer<ListEdit>? = nil
  ) -> ListProbe {
    if let known { return ListProbe(key: known, objectID: id, values: values, derived: derived) }
    let probe = ListProbe(key: ListSortKey(first: 0, second: 0), objectID: id, values: values, derived: derived)
    let encoded =
      other.map { $0.pointee.new == nil ? key(of: probe) : key(of: probe, sharingWith: $0) } ?? key(of: probe)
    return ListProbe(key: encoded, objectID: id, values: values, derived: derived)
  }

  /// The encoded first two sort values of `object` (its own `key` aside).
  private func key(of object: borrowing some ListSortValues) -> ListSortKey {
    let first = ListSortKey.word(object.sortValue(keys[0].source, in: self), ascending: keys[0].ascending)
    guard keys.count > 1 else { return ListSortKey(first: first, second: 0) }
    return ListSortKey(
      first: first, second: ListSortKey.word(object.sortValue(keys[1].source, in: self), ascending: keys[1].ascending))
  }

  /// The encoded first two sort values of `object`, each word read from
  /// the key of `other`'s object where it holds an identical value for
  /// that key (see ``isIdentical(_:_:)``), encoded otherwise. `other` is
  /// read in place, field by field: a copy of it would retain and release
  /// its references.
  ///
  /// - Precondition: `other` has an object.
  private func key(
    of object: borrowing some ListSortValues, sharingWith other: UnsafePointer<ListEdit>
  ) -> ListSortKey {
    let known = other.pointee.key
    // The word of key `index`: `other`'s, `word`, when its value is
    // identical; encoded otherwise.
    func word(_ index: Int, _ word: UInt64) -> UInt64 {
      let source = keys[index].source
      let value = object.sortValue(source, in: self)
      if let otherValue = other.pointee.sortValue(source), Self.isIdentical(value, otherValue) { return word }
      return ListSortKey.word(value, ascending: keys[index].ascending)
    }
    let first = word(0, known.first)
    guard keys.count > 1 else { return ListSortKey(first: first, second: 0) }
    return ListSortKey(first: first, second: word(1, known.second))
  }

  /// Whether `a` and `b` are one value in one representation, so that they
  /// encode alike: the same case and payload bits (a string's two words,
  /// its bytes or a reference to storage that no one changes while both
  /// hold it). False for the other kinds, and for equal values stored
  /// apart, which are then encoded: a string equal to another by `==` may
  /// differ in its bytes (see ``stringOrder(_:_:)``). A cheaper test than
  /// `FilterValue.isIdentical(to:)`, which reads two strings' bytes where
  /// their representations differ and is not inlined here: a value an edit
  /// changed is encoded anyway.
  static func isIdentical(_ a: FilterValue, _ b: FilterValue) -> Bool {
    // One value at a time, as in ``order(_:_:)``: a switch on the pair
    // would copy both.
    switch a {
    case .null:
      if case .null = b { return true }
    case .bool(let x):
      if case .bool(let y) = b { return x == y }
    case .int(let x):
      if case .int(let y) = b { return x == y }
    case .double(let x):
      if case .double(let y) = b { return x.bitPattern == y.bitPattern }
    case .date(let x):
      if case .date(let y) = b { return x.bitPattern == y.bitPattern }
    case .string(let x):
      // Where a string is not two words (32-bit platforms), it is encoded.
      guard MemoryLayout<String>.size == MemoryLayout<StringBits>.size, case .string(let y) = b else { break }
      return unsafeBitCast(x, to: StringBits.self) == unsafeBitCast(y, to: StringBits.self)
    default:
      break
    }
    return false
  }

  /// A string's two words, as stored.
  private struct StringBits: Equatable {
    let low: UInt64
    let high: UInt64
  }

  /// The section of an object: its first sort key's value.
  func sectionKey(of object: borrowing some ListSortValues) -> SectionKey {
    SectionKey(
      value: object.sortValue(keys[0].source, in: self),
      word: object.key.first)
  }

  // The comparisons below read through pointers valid during the call: a
  // search's (invariant 3 in Support/OrderStatisticTree/OrderStatisticTree.swift)
  // or one to a value at hand or a probe (invariant 8).

  /// The order of `a` and `b` on sort key `index`, its direction applied,
  /// read from the values.
  private func directedOrder<A: ListSortValues, B: ListSortValues>(
    _ index: Int, _ a: UnsafePointer<A>, _ b: UnsafePointer<B>
  ) -> Int {
    let source = keys[index].source
    let order = Self.order(
      a.pointee.sortValue(source, in: self),
      b.pointee.sortValue(source, in: self))
    return keys[index].ascending ? order : -order
  }

  /// The order of `a` and `b` on every sort key, direction applied, the
  /// identifier aside: the encoded words first, the values only where the
  /// words tie without being exact, and for keys beyond the second.
  @inline(__always)
  private func keyOrder<A: ListSortValues, B: ListSortValues>(_ a: UnsafePointer<A>, _ b: UnsafePointer<B>) -> Int {
    let (x, y) = (a.pointee.key, b.pointee.key)
    let first = ListSortKey.order(x.first, y.first) ?? directedOrder(0, a, b)
    if first != 0 { return first }
    guard keys.count > 1 else { return 0 }
    let second = ListSortKey.order(x.second, y.second) ?? directedOrder(1, a, b)
    if second != 0 { return second }
    var index = 2
    while index < keys.count {
      let order = directedOrder(index, a, b)
      if order != 0 { return order }
      index += 1
    }
    return 0
  }

  /// Whether `a` comes before `b`: sort keys, then identifier.
  ///
  /// Reads both through pointers, field by field: an object is never
  /// copied whole (four references retained and released) to be compared.
  ///
  /// Inlined where it is called: most comparisons of a search are decided
  /// by the first differing encoded word (see ``ListSortKey``), read from
  /// the two objects in place; only words that tie go to the full order.
  @inline(__always)
  func isBefore<A: ListSortValues, B: ListSortValues>(_ a: UnsafePointer<A>, _ b: UnsafePointer<B>) -> Bool {
    ListSortKey.isBefore(a.pointee.key, b.pointee.key) ?? isBeforeOnEveryKey(a, b)
  }

  /// Whether `a` comes before the listed object that probe `b` stands for
  /// (see ``ListProbe``), as ``isBefore(_:_:)``: where the words tie, `a`
  /// with the probe's identifier is that object, whose values are the
  /// probe's (invariant 8 in
  /// Support/OrderStatisticTree/OrderStatisticTree.swift), so not before
  /// it, and its values are not read.
  ///
  /// - Precondition: `b` stands for an object as the list holds it now
  ///   (its values are the table's): a probe of an edit's new object,
  ///   searched while the old one is listed, is not for this test.
  @inline(__always)
  func isBefore<A: ListSortValues>(_ a: UnsafePointer<A>, probe b: UnsafePointer<ListProbe>) -> Bool {
    ListSortKey.isBefore(a.pointee.key, b.pointee.key)
      ?? (a.pointee.objectID != b.pointee.objectID && isBeforeOnEveryKey(a, b))
  }

  /// Whether `a` comes before `b`, every key read: for objects whose words
  /// do not decide.
  @inline(never)
  private func isBeforeOnEveryKey<A: ListSortValues, B: ListSortValues>(
    _ a: UnsafePointer<A>, _ b: UnsafePointer<B>
  ) -> Bool {
    let order = keyOrder(a, b)
    return order != 0 ? order < 0 : a.pointee.objectID < b.pointee.objectID
  }

  /// Whether `a` and `b`, both read in place, have equal values on every
  /// sort key.
  func hasSameKeys<B: ListSortValues>(_ a: UnsafePointer<ListedObject>, _ b: UnsafePointer<B>) -> Bool {
    keyOrder(a, b) == 0
  }

  /// The order of section `a` (in a list's sections) and section `b`,
  /// direction applied.
  func sectionOrder(_ a: UnsafePointer<SectionCount>, _ b: borrowing SectionKey) -> Int {
    if let order = ListSortKey.order(a.pointee.key.word, b.word) { return order }
    let order = Self.order(a.pointee.key.value, b.value)
    return keys[0].ascending ? order : -order
  }

  /// Whether section `a` (in a list's sections) comes before section `b`.
  func isSectionBefore(_ a: UnsafePointer<SectionCount>, _ b: borrowing SectionKey) -> Bool { sectionOrder(a, b) < 0 }

  /// Whether section `a` (in a list's sections) is section `b`.
  func isSameSection(_ a: UnsafePointer<SectionCount>, _ b: borrowing SectionKey) -> Bool { sectionOrder(a, b) == 0 }

  /// Whether `a` and `b`, both read in place, are in one section: their
  /// values on the first sort key, which is the section key, tie in the
  /// list's order. No ``SectionKey`` is made (a copy of each value).
  func isSameSection<A: ListSortValues, B: ListSortValues>(_ a: UnsafePointer<A>, _ b: UnsafePointer<B>) -> Bool {
    (ListSortKey.order(a.pointee.key.first, b.pointee.key.first) ?? directedOrder(0, a, b)) == 0
  }

  /// Whether section `a` comes before section `b`, for keys at hand.
  func isSectionBefore(_ a: SectionKey, _ b: SectionKey) -> Bool {
    withUnsafePointer(to: SectionCount(key: a, count: 0)) { sectionOrder($0, b) < 0 }
  }

  /// Whether `a` and `b` are one section, for keys at hand.
  func isSameSection(_ a: SectionKey, _ b: SectionKey) -> Bool {
    withUnsafePointer(to: SectionCount(key: a, count: 0)) { sectionOrder($0, b) == 0 }
  }

  /// A total order on values: nil first, then values in the predicate
  /// language's order (numbers by value, strings as `<` compares them,
  /// dates in time), NaN after every other number.
  static func order(_ a: FilterValue, _ b: FilterValue) -> Int {
    // The common cases first, without the general comparison's checks,
    // switching on each value in turn: a switch on the pair `(a, b)` would
    // copy both (a retain and a release of a string's storage).
    switch a {
    case .int(let x):
      if case .int(let y) = b { return x < y ? -1 : (x == y ? 0 : 1) }
    case .double(let x) where !x.isNaN:
      if case .double(let y) = b, !y.isNaN { return x < y ? -1 : (x == y ? 0 : 1) }
    case .string(let x):
      if case .string(let y) = b { return stringOrder(x, y) }
    default:
      break
    }
    return generalOrder(a, b)
  }

  /// The order of two strings by Unicode scalar values, as
  /// ``FilterValue/predicateOrder(_:_:)`` orders them: UTF-8 byte order,
  /// then length.
  ///
  /// Never `==` first: it treats canonically equivalent strings (`"é"` and
  /// `"e\u{301}"`) as equal, which bytes do not, and one order must hold
  /// for every comparison of a list.
  private static func stringOrder(_ a: String, _ b: String) -> Int {
    var (x, y) = (a, b)
    return x.withUTF8 { x in
      y.withUTF8 { y in
        let common = Swift.min(x.count, y.count)
        if common > 0 {
          let order = memcmp(x.baseAddress!, y.baseAddress!, common)
          if order != 0 { return order < 0 ? -1 : 1 }
        }
        return x.count == y.count ? 0 : (x.count < y.count ? -1 : 1)
      }
    }
  }

  private static func generalOrder(_ a: FilterValue, _ b: FilterValue) -> Int {
    switch (a.isNull, b.isNull) {
    case (true, true): return 0
    case (true, false): return -1
    case (false, true): return 1
    case (false, false): break
    }
    if let order = try? FilterValue.predicateOrder(a, b) { return order.signum() }
    // A NaN, or values of kinds without a common order.
    let (x, y) = (rank(a), rank(b))
    return x < y ? -1 : (x > y ? 1 : 0)
  }

  private static func rank(_ value: FilterValue) -> Int {
    switch value {
    case .double(let number) where number.isNaN: 1
    case .bool, .int, .double: 0
    case .string: 2
    case .date(let seconds) where seconds.isNaN: 4
    case .date: 3
    default: 5
    }
  }

  /// Reads the derived values of a live object.
  func derivedValues(of object: ManagedObject, in context: ObjectContext) -> [FilterValue] {
    guard !paths.isEmpty else { return [] }
    return paths.map { path in
      var current = object
      for step in path.steps {
        guard case .toOne(let target?) = current.relationships[step.slot],
          let next = context.object(with: target)
        else { return .null }
        current = next
      }
      return current.values[path.attributeSlot]
    }
  }
}
