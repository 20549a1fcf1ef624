import PredicateDSL

/// `context-watch eval --cases`: one JSON answer per JSON input line.
///
/// Input lines are `{"format": String, "args": [JSON]?, "vars": {String:
/// JSON}?, "object": JSON?}`. Answers are `{"canonical": String}` for a
/// predicate that parses (arguments substituted), `{"error": {"stage":
/// "parse", "message", "offset", "line", "column"}}` for one that does not,
/// and `{"error": {"stage": "input", "message"}}` for a line that is not a
/// case. One bad line never stops the run.
enum EvalCommand {
  static func run(_ arguments: [String]) -> Int32 {
    guard arguments == ["--cases"] else {
      Console.error("usage: context-watch eval --cases < cases.jsonl")
      return 64
    }
    for line in Console.inputLines {
      print(answer(line).serialized)
    }
    return 0
  }

  /// The answer to one input line.
  static func answer(_ line: String) -> JSONValue {
    let testCase: TestCase
    do {
      testCase = try TestCase(line)
    } catch {
      return inputError(error.description)
    }
    do {
      let syntax = try PredicateParser.parse(testCase.format, arguments: testCase.arguments)
      return .object([("canonical", .string(syntax.description))])
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

    init(_ line: String) throws(Invalid) {
      let json: JSONValue
      do {
        json = try JSONValue.parse(line)
      } catch {
        throw Invalid(description: error.description)
      }
      guard case .object = json else {
        throw Invalid(description: "a case must be a JSON object, not \(json.typeName)")
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
          throw Invalid(description: "\"args\" must be an array, not \(other.typeName)")
        }
        switch json["vars"] {
        case nil, .null?:
          variables = [:]
        case .object(let members)?:
          variables = [:]
          for member in members { variables[member.key] = try member.value.filterValue() }
        case let other?:
          throw Invalid(description: "\"vars\" must be an object, not \(other.typeName)")
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
