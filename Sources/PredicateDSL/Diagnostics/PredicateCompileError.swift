/// An error thrown when a parsed predicate cannot be compiled: a key that the
/// resolver does not know, an operator that cannot apply to a key's type, an
/// invalid `MATCHES` pattern, an unbound `$VARIABLE`, or a constant
/// expression that would fail on every evaluation.
///
/// The error names the key and the entity where they matter, and the
/// position of the offending expression in the predicate text.
///
/// ```swift
/// do {
///   _ = try CompiledFilter("agee > 30", resolver: personResolver)
/// } catch {
///   print(error)  // predicate:1:1: error: Person has no key 'agee'
/// }
/// ```
public struct PredicateCompileError: Error, Hashable, Sendable, CustomStringConvertible {
  /// The broad kind of problem.
  public var code: Code
  /// What is wrong, in one sentence without the position.
  public var message: String
  /// The UTF-8 range of the offending expression in the predicate text;
  /// ``SyntaxRange/synthesized`` for a tree built in code.
  public var range: SyntaxRange
  /// The key path involved, if any, as written: `"department.name"`.
  public var key: String?
  /// The entity whose key was looked up, if any.
  public var entity: String?
  /// The predicate text, when the predicate was compiled from text; it gives
  /// ``location`` and the caret rendering.
  public var source: String?

  /// Creates an error.
  public init(
    _ code: Code, _ message: String, at range: SyntaxRange, key: String? = nil,
    entity: String? = nil
  ) {
    self.code = code
    self.message = message
    self.range = range
    self.key = key
    self.entity = entity
  }

  /// The error for a key that an entity does not have, with a
  /// did-you-mean among `candidates`.
  public static func unknownKey(
    _ path: KeyPathReference, component: Int = 0, entity: String, candidates: [String] = []
  ) -> PredicateCompileError {
    let key = path.components[component]
    var message = "\(entity) has no key '\(key)'"
    if let closest = Parser.closest(to: key, among: candidates) {
      message += " (did you mean '\(closest)'?)"
    }
    return PredicateCompileError(
      .unknownKey, message, at: path.range, key: path.description, entity: entity)
  }

  /// The kinds of compile error. New codes may be added; switch with a default.
  public struct Code: Hashable, Sendable, CustomStringConvertible {
    private let name: String
    private init(_ name: String) { self.name = name }

    /// A key path that the resolver cannot read.
    public static let unknownKey = Code("unknownKey")
    /// An operator or function applied to a value of a type it cannot take,
    /// known from the schema or from constants.
    public static let typeMismatch = Code("typeMismatch")
    /// A `$VARIABLE` with no value.
    public static let unboundVariable = Code("unboundVariable")
    /// A `MATCHES` pattern that is not a valid regular expression.
    public static let invalidPattern = Code("invalidPattern")
    /// A constant expression that fails whenever it is evaluated, such as
    /// `1 / 0` or `{1, 2}[5]`.
    public static let invalidConstant = Code("invalidConstant")
    /// Something the compiler does not support, such as `CAST` to an unknown
    /// class or the `UTI-CONFORMS-TO` operator.
    public static let unsupported = Code("unsupported")

    /// The code's name, such as `unknownKey`.
    public var description: String { name }
  }

  /// Where the error is, when ``source`` is known.
  public var location: PredicateParseError.Location? {
    source.map { DiagnosticText.locate(range, in: $0).location }
  }

  /// One line in compiler style: `predicate:1:1: error: Person has no key 'agee'`,
  /// or `error: … (at offset 0)` without the source.
  public var description: String {
    DiagnosticText.oneLine(message, range: range, source: source)
  }

  /// The error as several lines, with the predicate and a caret under the
  /// offending expression (the one-line form when the source is unknown).
  public func detailedDescription() -> String {
    guard let source else { return description }
    return DiagnosticText.render(message, range: range, source: source)
  }
}

/// An error thrown while evaluating a compiled predicate, where Apple's
/// `NSPredicate` raises an exception: ordering a number against a string,
/// `ANY` over a value that is not a collection, an index out of range,
/// arithmetic on a string.
///
/// ```swift
/// let filter = try CompiledFilter("age < '40'", resolver: RecordKeyResolver())
/// try filter.evaluate(["age": 30])
/// // predicate:1:1: error: cannot order integer 30 against string "40"
/// ```
public struct PredicateEvaluationError: Error, Hashable, Sendable, CustomStringConvertible {
  /// The broad kind of problem.
  public var code: Code
  /// What is wrong, in one sentence without the position.
  public var message: String
  /// The UTF-8 range of the expression or comparison that failed.
  public var range: SyntaxRange
  /// The predicate text, when the predicate was compiled from text.
  public var source: String?

  /// Creates an error.
  public init(_ code: Code, _ message: String, at range: SyntaxRange, source: String? = nil) {
    self.code = code
    self.message = message
    self.range = range
    self.source = source
  }

  /// The kinds of evaluation error. New codes may be added; switch with a default.
  public struct Code: Hashable, Sendable, CustomStringConvertible {
    private let name: String
    private init(_ name: String) { self.name = name }

    /// Values of types the operation cannot take, such as ordering a number
    /// against a string, or adding strings.
    public static let typeMismatch = Code("typeMismatch")
    /// `ANY`, `ALL`, `NONE`, `IN` or a collection function applied to a
    /// value that is not a collection.
    public static let notACollection = Code("notACollection")
    /// An array index beyond the end.
    public static let indexOutOfRange = Code("indexOutOfRange")
    /// Integer division or modulus by zero.
    public static let divisionByZero = Code("divisionByZero")
    /// `BETWEEN` whose bounds are not a two-element collection.
    public static let invalidBounds = Code("invalidBounds")
    /// A `MATCHES` pattern, computed during evaluation, that is not a valid
    /// regular expression.
    public static let invalidPattern = Code("invalidPattern")
    /// A value that cannot be converted by `CAST`.
    public static let invalidCast = Code("invalidCast")
    /// Work beyond a limit, such as a `MATCHES` pattern that outruns
    /// ``PredicateLimits/regexBudget``: the answer is unknown.
    public static let limitExceeded = Code("limitExceeded")

    /// The code's name, such as `typeMismatch`.
    public var description: String { name }
  }

  /// Where the error is, when ``source`` is known.
  public var location: PredicateParseError.Location? {
    source.map { DiagnosticText.locate(range, in: $0).location }
  }

  /// One line in compiler style, like ``PredicateCompileError/description``.
  public var description: String {
    DiagnosticText.oneLine(message, range: range, source: source)
  }

  /// The error as several lines, with the predicate and a caret under the
  /// expression that failed (the one-line form when the source is unknown).
  public func detailedDescription() -> String {
    guard let source else { return description }
    return DiagnosticText.render(message, range: range, source: source)
  }
}

/// Position arithmetic and rendering shared by every predicate diagnostic.
enum DiagnosticText {
  static func locate(_ range: SyntaxRange, in source: String) -> (location: PredicateParseError.Location, length: Int) {
    let utf8 = source.utf8
    let offset = min(max(range.lowerBound, 0), utf8.count)
    let end = min(max(range.upperBound, offset), utf8.count)
    let offsetIndex = utf8.index(utf8.startIndex, offsetBy: offset)
    var line = 1
    var lineStart = utf8.startIndex
    var index = utf8.startIndex
    for byte in utf8[..<offsetIndex] {
      utf8.formIndex(after: &index)
      if byte == UInt8(ascii: "\n") {
        line += 1
        lineStart = index
      }
    }
    let column = characterCount(utf8[lineStart..<offsetIndex]) + 1
    let endIndex = utf8.index(offsetIndex, offsetBy: end - offset)
    let length = characterCount(utf8[offsetIndex..<endIndex], stoppingAtNewline: true)
    return (PredicateParseError.Location(utf8Offset: offset, line: line, column: column), max(length, 1))
  }

  /// The longest run of bytes counted through a decoded copy; longer runs
  /// (a long line of a predicate of megabytes) are counted in place.
  static let copiedCountLimit = 4_096

  /// The number of characters in `bytes` (up to the first line break, if
  /// asked). Short runs are decoded, which also counts a stray byte of a
  /// cut character as one; long ones are counted in place, without a
  /// copy of what may be gigabytes of text.
  static func characterCount(_ bytes: Substring.UTF8View, stoppingAtNewline: Bool = false) -> Int {
    func count(_ text: some StringProtocol) -> Int {
      stoppingAtNewline ? text.prefix(while: { $0 != "\n" && $0 != "\r\n" }).count : text.count
    }
    guard bytes.count > copiedCountLimit else { return count(String(decoding: bytes, as: UTF8.self)) }
    return count(Substring(bytes))
  }

  static func oneLine(_ message: String, range: SyntaxRange, source: String?) -> String {
    guard let source, range != .synthesized || source.isEmpty == false else {
      return "error: \(message) (at offset \(range.lowerBound))"
    }
    let location = locate(range, in: source).location
    return "predicate:\(location.line):\(location.column): error: \(message)"
  }

  static func render(_ message: String, range: SyntaxRange, source: String) -> String {
    let (location, length) = locate(range, in: source)
    let error = PredicateParseError(
      code: .unexpectedToken, message: message, location: location, length: length,
      expected: [], found: nil, suggestion: nil, source: source)
    return error.detailedDescription()
  }
}
