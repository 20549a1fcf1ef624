import PredicateDSL

/// `context-watch demo predicates`: the predicate language at work on
/// built-in examples.
enum PredicateTourCommand {
  struct Example {
    var format: String
    var arguments: [FilterValue] = []
    var note: String
  }

  static let examples: [Example] = [
    Example(format: "age > 30", note: "a comparison"),
    Example(
      format: "name beginswith[cd] 'jo' and (age >= 18 or guardian != nil)",
      note: "case-insensitive keywords, options, a parenthesised OR"),
    Example(format: "age = %d AND name == %@", arguments: [42, "Ann"], note: "format arguments"),
    Example(format: "%K BETWEEN {1, 10}", arguments: ["stats.score"], note: "%K becomes a key path"),
    Example(format: "ANY tags IN {'swift', 'linux'}", note: "a quantifier and a literal array"),
    Example(format: "(price * quantity) - discount =< 100", note: "arithmetic binds tighter than comparisons"),
    Example(format: "SUBQUERY(employees, $e, $e.salary > 0x10000).@count > 0", note: "SUBQUERY and a hex literal"),
    Example(
      format: "#size == 3 AND notes CONTAINS 'nil'", note: "escaped reserved words; keywords only as whole words"),
    Example(format: "name BEGINSWITHH 'A'", note: "a misspelt operator"),
    Example(format: "age > 30 AND", note: "an incomplete predicate"),
    Example(format: "name == %@ AND age > %d", arguments: ["Ann"], note: "a missing argument"),
    Example(format: "title MATCHES '\\d+'", note: "an unknown escape in a string literal"),
  ]

  static func run(_ arguments: [String]) -> Int32 {
    if let extra = arguments.first {
      Console.error("context-watch: demo: unexpected argument '\(extra)'\nusage: context-watch demo predicates")
      return 64
    }
    print("ContextWatcher's predicate language: Apple's NSPredicate format strings, parsed,")
    print("printed canonically and diagnosed. Each example shows the input, then the result.\n")
    for (number, example) in examples.enumerated() {
      print("\(number + 1). \(example.note)")
      let shownArguments =
        example.arguments.isEmpty
        ? "" : "   arguments: \(example.arguments.map(\.description).joined(separator: ", "))\n"
      print("   input:     \(example.format)\n\(shownArguments)", terminator: "")
      do {
        let syntax = try PredicateParser.parse(example.format, arguments: example.arguments)
        print("   canonical: \(syntax)\n")
      } catch {
        let rendered = error.detailedDescription().split(separator: "\n", omittingEmptySubsequences: false)
        print(rendered.map { "   " + $0 }.joined(separator: "\n") + "\n")
      }
    }
    return 0
  }
}
