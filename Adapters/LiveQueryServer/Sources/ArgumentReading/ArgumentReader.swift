/// Reads a command line's options one by one, for the package's tools:
/// the option, then its value, checked.
public struct ArgumentReader {
  /// A command line a tool cannot take: what is wrong, in one sentence.
  public struct UsageError: Error {
    /// What is wrong.
    public var message: String

    /// Creates an error.
    public init(message: String) { self.message = message }
  }

  private let arguments: [String]
  private var index = 0

  /// Reads `arguments` (without the program's name).
  public init(_ arguments: [String]) { self.arguments = arguments }

  /// The next option; nil after the last.
  public mutating func next() -> String? {
    guard index < arguments.count else { return nil }
    defer { index += 1 }
    return arguments[index]
  }

  /// The value of option `name`, which comes next.
  ///
  /// - Throws: ``UsageError`` when the command line ends first.
  public mutating func value(of name: String) throws(UsageError) -> String {
    guard let value = next() else { throw UsageError(message: "\(name) needs a value") }
    return value
  }

  /// The value of option `name` as a number of at least `minimum`.
  ///
  /// - Throws: ``UsageError`` naming the option, the bound and the text.
  public mutating func number<T: LosslessStringConvertible & Comparable>(
    of name: String, atLeast minimum: T
  ) throws(UsageError) -> T {
    let text = try value(of: name)
    guard let number = T(text), number >= minimum else {
      throw UsageError(message: "\(name) takes a number of at least \(minimum), not '\(text)'")
    }
    return number
  }
}
