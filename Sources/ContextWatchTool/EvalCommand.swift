import PredicateDSL
import WatchFormats

/// `context-watch eval`: evaluates predicates on JSON.
///
/// `eval --cases` answers one JSON line per JSON input line. Input lines are
/// `{"format": String, "args": [JSON]?, "vars": {String: JSON}?, "object":
/// JSON?}`. Answers are `{"canonical": String, "result": Bool}` for a
/// predicate that parses and evaluates (arguments substituted; the canonical
/// form keeps the variables), `{"canonical": String, "error": {"stage":
/// "evaluate", "message"}}` when compiling or evaluating fails,
/// `{"error": {"stage": "parse", "message", "offset", "line", "column"}}` for
/// one that does not parse, and `{"error": {"stage": "input", "message"}}`
/// for a line that is not a case. One bad line never stops the run.
///
/// `eval [--count] FORMAT [ARG...]` filters JSON lines: it prints the input
/// lines whose record matches, byte for byte, or with `--count` only how
/// many matched. Input must be UTF-8: a line that is not is reported with
/// the byte where it goes wrong, never rewritten.
enum EvalCommand {
  static func run(_ arguments: [String]) -> Int32 {
    if arguments == ["--cases"] {
      for line in Console.inputLines {
        switch line {
        case .bytes(let bytes): print(answer(bytes).serialized)
        case .tooLong(let length): print(inputError(Console.InputLine.tooLongMessage(length)).serialized)
        }
      }
      return 0
    }
    var rest = arguments[...]
    let counting = rest.first == "--count"
    if counting { rest = rest.dropFirst() }
    guard let format = rest.first, !format.hasPrefix("--") else {
      Console.error(
        "usage: context-watch eval --cases < cases.jsonl\n       context-watch eval [--count] FORMAT [ARG...] < records.jsonl"
      )
      return 64
    }
    guard let values = formatArguments(rest.dropFirst()) else { return 64 }
    return filterLines(format: format, arguments: values, counting: counting)
  }

  /// Prints the lines of standard input whose JSON record matches, or their
  /// count. A line that is not JSON, or on which evaluation fails, is
  /// reported on standard error with its line number; the others still run,
  /// and the exit status is 1.
  static func filterLines(format: String, arguments: [FilterValue], counting: Bool) -> Int32 {
    let filter: CompiledFilter<FilterValue>
    do {
      filter = try CompiledFilter(format, arguments: arguments, resolver: RecordKeyResolver())
    } catch let error as PredicateParseError {
      Console.error(error.detailedDescription())
      return 1
    } catch let error as PredicateCompileError {
      Console.error(error.detailedDescription())
      return 1
    } catch {
      Console.error("context-watch: \(error)")
      return 1
    }
    var count = 0
    var failed = false
    var lineNumber = 0
    for line in Console.inputLines {
      lineNumber += 1
      if Console.isBlank(line) { continue }
      guard case .bytes(let line) = line else {
        if case .tooLong(let length) = line {
          Console.error("line \(lineNumber): \(Console.InputLine.tooLongMessage(length))")
        }
        failed = true
        continue
      }
      do {
        let record = try JSONValue.parse(line).filterValue()
        if try filter.evaluate(record) {
          count += 1
          if !counting { Console.echo(line) }
        }
      } catch let error as PredicateEvaluationError {
        Console.error("line \(lineNumber): \(error.detailedDescription())")
        failed = true
      } catch {
        Console.error("line \(lineNumber): \(error)")
        failed = true
      }
    }
    if counting { print(count) }
    return failed ? 1 : 0
  }

  /// The answer to one input line.
  static func answer(_ line: [UInt8]) -> JSONValue {
    let testCase: TestCase
    do {
      testCase = try TestCase(line)
    } catch {
      return inputError(error.description)
    }
    let syntax: PredicateSyntax
    do {
      syntax = try PredicateParser.parse(testCase.format, arguments: testCase.arguments)
    } catch {
      return .object([
        (
          "error",
          .object([
            ("stage", .string("parse")),
            ("message", .string(error.summary)),
            ("offset", .int(Int64(error.location.utf8Offset))),
            ("line", .int(Int64(error.location.line))),
            ("column", .int(Int64(error.location.column))),
          ])
        )
      ])
    }
    let canonical: (String, JSONValue) = ("canonical", .string(syntax.description))
    do {
      let filter = try CompiledFilter(
        syntax, variables: testCase.variables, source: testCase.format, resolver: RecordKeyResolver())
      let result = try filter.evaluate(testCase.object)
      return .object([canonical, ("result", .bool(result))])
    } catch let error as PredicateCompileError {
      return .object([canonical, evaluationError(error.message)])
    } catch let error as PredicateEvaluationError {
      return .object([canonical, evaluationError(error.message)])
    } catch {
      return .object([canonical, evaluationError("\(error)")])
    }
  }

  static func evaluationError(_ message: String) -> (String, JSONValue) {
    ("error", .object([("stage", .string("evaluate")), ("message", .string(message))]))
  }

  static func inputError(_ message: String) -> JSONValue {
    .object([("error", .object([("stage", .string("input")), ("message", .string(message))]))])
  }

  /// One decoded input line.
  struct TestCase {
    var format: String
    var arguments: [FilterValue]
    var variables: [String: FilterValue]
    var object: FilterValue

    struct Invalid: Error, CustomStringConvertible {
      var description: String
    }

    init(_ line: [UInt8]) throws(Invalid) {
      let json: JSONValue
      do {
        json = try JSONValue.parse(line)
      } catch {
        throw Invalid(description: error.description)
      }
      guard case .object = json else {
        throw Invalid(description: "a case must be a JSON object, not \(json.phrase)")
      }
      guard case .string(let format)? = json["format"] else {
        throw Invalid(description: "a case needs a \"format\" string")
      }
      self.format = format
      do {
        switch json["args"] {
        case nil, .null?:
          arguments = []
        case .array(let elements)?:
          arguments = []
          for element in elements { arguments.append(try element.filterValue()) }
        case let other?:
          throw Invalid(description: "\"args\" must be an array, not \(other.phrase)")
        }
        switch json["vars"] {
        case nil, .null?:
          variables = [:]
        case .object(let members)?:
          variables = [:]
          for member in members { variables[member.key] = try member.value.filterValue() }
        case let other?:
          throw Invalid(description: "\"vars\" must be an object, not \(other.phrase)")
        }
        object = try json["object"]?.filterValue() ?? .null
      } catch let error as JSONValue.ConversionError {
        throw Invalid(description: error.description)
      } catch let error as Invalid {
        throw error
      } catch {
        throw Invalid(description: "\(error)")
      }
    }
  }
}
