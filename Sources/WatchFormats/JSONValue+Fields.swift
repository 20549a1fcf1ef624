import PredicateDSL

extension JSONValue {
  /// One message per member of this object whose key is not one of
  /// `fields`, in the object's order, each with the field it likely
  /// misspells: how `context-watch` and `pg-watch` refuse an unknown key in
  /// their files, so that a misspelt field never quietly takes its default.
  ///
  /// A key that differs from a field only in case, or by a few edits
  /// (transpositions count as one), gets a did-you-mean; otherwise the
  /// message lists the fields, in the order given. A value that is not an
  /// object has no members, hence no messages. The caller puts the place
  /// in front of each message:
  ///
  /// ```swift
  /// let entity = try JSONValue.parse(Array(#"{"name": "Person", "tabel": "people"}"#.utf8))
  /// let problems = entity.unknownFieldMessages(allowed: ["name", "table", "primaryKey"])
  ///   .map { "entities[0]: \($0)" }
  /// // ["entities[0]: unknown field 'tabel' (did you mean 'table'?)"]
  /// ```
  ///
  /// - Parameter fields: The keys the object may have, in the order a
  ///   message lists them.
  /// - Returns: `unknown field 'KEY' (did you mean 'FIELD'?)`, or
  ///   `unknown field 'KEY' (fields: FIELD, …)`, per unknown key.
  /// - Complexity: O(*m* × *f*) in the members and the fields, each
  ///   comparison bounded by the keys' lengths.
  public func unknownFieldMessages(allowed fields: [String]) -> [String] {
    guard case .object(let members) = self else { return [] }
    return members.filter { !fields.contains($0.key) }.map { UnknownField.message($0.key, fields: fields) }
  }

  /// The value as a message names what it found instead of what it wanted:
  /// `null`, `the Boolean true`, `the number 5`, `the string "yes"` (cut
  /// after 40 characters), `an array` or `an object`.
  ///
  /// ```swift
  /// "\"name\" is a string, not \(JSONValue.int(5).phrase)"  // … not the number 5
  /// ```
  public var phrase: String {
    switch self {
    case .null: "null"
    case .bool(let flag): "the Boolean \(flag)"
    case .int(let number): "the number \(number)"
    case .double(let number): "the number \(number)"
    case .string(let text): "the string \"\(text.count > 40 ? text.prefix(40) + "…" : text)\""
    case .array: "an array"
    case .object: "an object"
    }
  }
}
