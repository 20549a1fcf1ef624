import PredicateDSL

/// `context-watch check FORMAT [ARG...]`: prints the canonical form of the
/// predicate, arguments substituted, on standard output; or the rendered
/// error on standard error and exit status 1.
enum CheckCommand {
  static func run(_ arguments: [String]) -> Int32 {
    guard let format = arguments.first else {
      Console.error("usage: context-watch check FORMAT [ARG...]")
      return 64
    }
    guard let values = formatArguments(arguments.dropFirst()) else { return 64 }
    do {
      let syntax = try PredicateParser.parse(format, arguments: values)
      print(syntax)
      return 0
    } catch {
      Console.error(error.detailedDescription())
      return 1
    }
  }
}
