/// The message for a key that a JSON object of one of our files may not
/// have, with a did-you-mean: one wording for the schema, watches, lists and
/// change files, and for `WatchFormats`' `JSONValue.unknownFieldMessages`.
///
/// ```swift
/// UnknownField.message("optionl", fields: ["type", "optional", "default", "indexed"])
/// // unknown field 'optionl' (did you mean 'optional'?)
/// UnknownField.message("colour", fields: ["id", "entity"])
/// // unknown field 'colour' (fields: id, entity)
/// ```
package enum UnknownField {
  /// `unknown field 'KEY'`, then the field `key` likely misspells, or
  /// when none is close, every field in the order given.
  package static func message(_ key: String, fields: [String]) -> String {
    if let guess = suggestion(for: key, among: fields) { return "unknown field '\(key)' (did you mean '\(guess)'?)" }
    return "unknown field '\(key)' (fields: \(fields.joined(separator: ", ")))"
  }

  /// The candidate `word` likely misspells: one that differs only in case,
  /// else the closest by edit distance (transpositions count as one edit)
  /// when it is close enough; nil when none is.
  package static func suggestion(for word: String, among candidates: [String]) -> String? {
    let lowered = word.lowercased()
    if let match = candidates.first(where: { $0 != word && $0.lowercased() == lowered }) { return match }
    return Parser.closest(to: word, among: candidates)
  }
}
