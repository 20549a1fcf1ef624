internal import Dispatch
internal import Foundation

/// Parses predicate format strings, Apple's `NSPredicate(format:)` syntax,
/// into ``PredicateSyntax``.
///
/// ```swift
/// let syntax = try PredicateParser.parse(
///   "name BEGINSWITH[c] %@ AND age > %d", arguments: ["a", 30])
/// print(syntax)  // name BEGINSWITH[c] "a" AND age > 30
/// ```
///
/// Arguments are substituted while parsing: `%K` becomes a key path, every
/// other specifier a constant. `$VARIABLES` stay in the tree until
/// ``PredicateSyntax/substituting(_:)`` replaces them.
///
/// Parsing is linear in the length of the text and never recurses deeper
/// than `maximumDepth` levels of nesting (parentheses, `NOT`, unary minus,
/// braces, brackets and calls); deeper input is a
/// ``PredicateParseError/Code/nestingTooDeep`` error, never a stack overflow.
///
/// Whatever the caller's stack: text nested more than 16 levels deep (rare
/// in practice) is parsed again on a thread of the parser's own with a
/// stack sized for `maximumDepth` (32 KiB a level), while the caller waits.
/// At the default limit, parsing inline on a thread with a 512 KiB stack
/// (secondary threads on Apple's platforms) would overflow it.
public enum PredicateParser {
  /// The default limit on nesting: 256 levels.
  public static let defaultMaximumDepth = 256

  /// The nesting parsed on the caller's stack; deeper text is parsed again
  /// on a thread with a stack sized for it. Sixteen levels take at most
  /// 71 KiB of stack in a release build (`Scripts/measure-parser-stack.sh`).
  static let inlineDepth = 16

  /// Parses a predicate format string, within the given limits.
  ///
  /// ```swift
  /// let syntax = try PredicateParser.parse("age > %d", arguments: [30])
  /// let limits = PredicateLimits(maximumLength: 64 * 1024, maximumDepth: 32)
  /// let untrusted = try PredicateParser.parse(clientText, limits: limits)
  /// ```
  ///
  /// - Parameters:
  ///   - format: The predicate text, such as `"age > %d AND name != nil"`.
  ///   - arguments: The values for the `%` specifiers, in order.
  ///   - limits: The longest text and the deepest nesting accepted. Text
  ///     longer than `limits.maximumLength` is refused before it is read.
  /// - Returns: The syntax tree, arguments substituted.
  /// - Throws: ``PredicateParseError`` for text that does not follow the
  ///   grammar, and for arguments that are missing, extra or of the wrong
  ///   kind; with ``PredicateParseError/Code/textTooLong`` for text over the
  ///   length limit and ``PredicateParseError/Code/nestingTooDeep`` for
  ///   nesting over the depth limit.
  /// - Complexity: O(*n*) in the length of `format` and the size of the arguments.
  public static func parse(
    _ format: String, arguments: [FilterValue] = [], limits: PredicateLimits = .default
  ) throws(PredicateParseError) -> PredicateSyntax {
    try parse(
      format, arguments: arguments, maximumDepth: limits.maximumDepth, maximumLength: limits.maximumLength,
      exactPairs: false)
  }

  /// Parses a predicate format string with a depth limit of its own; the
  /// length limit is the default one.
  ///
  /// - Parameters:
  ///   - format: The predicate text.
  ///   - arguments: The values for the `%` specifiers, in order.
  ///   - maximumDepth: The deepest nesting accepted.
  /// - Returns: The syntax tree, arguments substituted.
  /// - Throws: ``PredicateParseError``.
  @available(*, deprecated, message: "pass limits: PredicateLimits(maximumDepth:), which holds every limit")
  public static func parse(
    _ format: String, arguments: [FilterValue] = [], maximumDepth: Int
  ) throws(PredicateParseError) -> PredicateSyntax {
    try parse(format, arguments: arguments, limits: PredicateLimits(maximumDepth: maximumDepth))
  }

  /// Parses a predicate format string into a tree that is kept, as a
  /// watch keeps its predicate: with `exactPairs`, a chain of two operands
  /// (`a AND b`, the most common) gets an array of exactly two rather than
  /// room for four, 144 bytes less. Longer chains cost the same either
  /// way; the option is not the default because testing for a pair in the
  /// parser's loop makes longer chains slower to parse.
  @inline(__always)
  package static func parse(
    _ format: String, arguments: [FilterValue], maximumDepth: Int = defaultMaximumDepth,
    maximumLength: Int = PredicateLimits.defaultMaximumLength, exactPairs: Bool
  ) throws(PredicateParseError) -> PredicateSyntax {
    var text = format
    // The outcome leaves the closure through locals: `withUTF8` rethrows
    // untyped errors, and an enum of the outcomes costs copies of the tree.
    var syntax: PredicateSyntax?
    var failure: PredicateParseError?
    var outgrewStack = false
    text.withUTF8 { bytes in
      var parser = Parser(
        bytes: bytes, source: format, arguments: arguments, maximumDepth: maximumDepth,
        inlineDepth: min(maximumDepth, inlineDepth),
        maximumLength: min(max(maximumLength, 0), SyntaxRange.maximumOffset))
      parser.exactPairs = exactPairs
      do throws(PredicateParseError) {
        syntax = try parser.parseWholePredicate()
      } catch {
        failure = error
      }
      outgrewStack = parser.outgrewInlineDepth
    }
    // Whatever came of it (a route that backtracks may have gone on): text
    // deeper than this stack is trusted with is parsed again where it may
    // nest to the limit.
    if outgrewStack { return try parseOnLargeStack(format, arguments, maximumDepth, exactPairs: exactPairs) }
    if let failure { throw failure }
    return syntax.unsafelyUnwrapped
  }

  /// What one attempt at parsing gave.
  enum Outcome: Sendable {
    case parsed(PredicateSyntax)
    case failed(PredicateParseError)
    /// The text nests deeper than `inline` levels (and may be within the
    /// limit): parse it again on a stack sized for the limit.
    case tooDeepForThisStack
  }

  /// Parses on the current stack, trusting it with `inline` levels.
  static func parse(
    _ format: String, _ arguments: [FilterValue], _ maximumDepth: Int, inline: Int, exactPairs: Bool = false
  ) -> Outcome {
    var text = format
    var outcome = Outcome.tooDeepForThisStack
    text.withUTF8 { bytes in
      var parser = Parser(
        bytes: bytes, source: format, arguments: arguments, maximumDepth: maximumDepth, inlineDepth: inline)
      parser.exactPairs = exactPairs
      do throws(PredicateParseError) {
        outcome = .parsed(try parser.parseWholePredicate())
      } catch {
        outcome = .failed(error)
      }
      if parser.outgrewInlineDepth { outcome = .tooDeepForThisStack }
    }
    return outcome
  }

  /// The stack one level of nesting may take on the large-stack thread
  /// (capped at 1 GiB in all). 32 KiB covers the deepest construct in a
  /// debug build (about 23 KiB a level; 4.4 KiB in a release build).
  /// AddressSanitizer puts redzones around locals and makes frames several
  /// times larger, so under it a level gets 256 KiB. A stack too small for
  /// its frames is not caught by the guard page below it: one level's
  /// frames are larger than the page, and the writes land in whatever is
  /// mapped below (ASan then reports a use of freed heap).
  static let stackPerLevel = isAddressSanitized ? 256 << 10 : 32 << 10

  /// Whether the process runs under AddressSanitizer (its runtime is
  /// loaded).
  static let isAddressSanitized: Bool = {
    guard let process = dlopen(nil, RTLD_NOW) else { return false }
    defer { dlclose(process) }
    return dlsym(process, "__asan_init") != nil
  }()

  /// Parses on a thread of its own, with a stack for `maximumDepth` levels
  /// of nesting, and waits for it. Out of line: the common path stays small.
  @inline(never)
  static func parseOnLargeStack(
    _ format: String, _ arguments: [FilterValue], _ maximumDepth: Int, exactPairs: Bool
  ) throws(PredicateParseError) -> PredicateSyntax {
    let result = OutcomeBox()
    let thread = Thread {
      result.store(parse(format, arguments, maximumDepth, inline: maximumDepth, exactPairs: exactPairs))
    }
    thread.stackSize = min(512 << 10 + max(maximumDepth, 0) * stackPerLevel, 1 << 30)
    thread.start()
    switch result.wait() {
    case .parsed(let syntax): return syntax
    case .failed(let error): throw error
    case .tooDeepForThisStack: preconditionFailure("a parse on the large stack trusts it with the whole limit")
    }
  }

  /// The outcome of a parse on another thread, handed over through a
  /// semaphore.
  // Unchecked: `value` is written once, by the parsing thread, before it
  // signals `ready`, and read only after `wait()` saw the signal.
  private final class OutcomeBox: @unchecked Sendable {
    private var value: Outcome?
    private let ready = DispatchSemaphore(value: 0)

    func store(_ outcome: Outcome) {
      value = outcome
      ready.signal()
    }

    func wait() -> Outcome {
      ready.wait()
      return value.unsafelyUnwrapped
    }
  }
}

extension PredicateSyntax {
  /// Parses a predicate format string; see
  /// ``PredicateParser/parse(_:arguments:limits:)``.
  ///
  /// ```swift
  /// let adults = try PredicateSyntax(parsing: "age >= %d", arguments: [18])
  /// ```
  ///
  /// - Throws: ``PredicateParseError``.
  public init(parsing format: String, arguments: [FilterValue] = []) throws(PredicateParseError) {
    self = try PredicateParser.parse(format, arguments: arguments)
  }
}
