/// An error reading JSON: what is wrong and where, as a line (1-based) and
/// a byte (1-based, counted in UTF-8 bytes from the start of that line).
///
/// Its ``description`` names the line only when the text has more than
/// one:
///
/// ```swift
/// do {
///   _ = try JSONValue.parse(Array("[\n  1,\n  x]".utf8))
/// } catch {
///   print(error)  // invalid JSON at line 3, byte 3: expected a value
/// }
/// ```
public struct JSONParseError: Error, Equatable, Sendable, CustomStringConvertible {
  /// What is wrong, such as `expected ',' or ']'`.
  public var message: String
  /// The UTF-8 offset of the problem from the start of the text, 0-based.
  public var offset: Int
  /// The line of the problem, 1-based.
  public var line: Int
  /// The problem's byte in its line, 1-based.
  public var byte: Int
  /// Whether the text has more than one line; the description names the
  /// line only then.
  public var isMultiline: Bool

  /// `invalid JSON at line 3, byte 3: expected a value`, or without the
  /// line for a text of one line.
  public var description: String {
    isMultiline
      ? "invalid JSON at line \(line), byte \(byte): \(message)" : "invalid JSON at byte \(byte): \(message)"
  }
}
