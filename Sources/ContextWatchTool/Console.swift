import Foundation
import PredicateDSL

/// Output for the commands: standard output is buffered and flushed at exit
/// (answers are written in order); standard error is written at once.
enum Console {
  static func error(_ text: String) {
    FileHandle.standardError.write(Data((text + "\n").utf8))
  }

  static func flush() {
    fflush(nil)
  }

  /// Every line of standard input, newline stripped, read lazily.
  static var inputLines: AnySequence<String> {
    AnySequence { AnyIterator { readLine(strippingNewline: true) } }
  }
}

enum Usage {
  static let text = """
    usage: context-watch <command> [options]

    commands:
      demo                     watch a built-in context: deliveries, enter/exit, key filters,
                               a change through a relationship, explain
      demo --saves N           a generated workload: throughput and save-to-delivery latency
      demo predicates          tour the predicate language on built-in examples
      check FORMAT [ARG...]    print FORMAT's canonical form, or the error with a caret
                               (each ARG is read as JSON if it is JSON, else as a string)
      eval --cases             read JSON lines {"format", "args"?, "vars"?, "object"?} on
                               standard input; write one JSON answer per line
      eval [--count] FORMAT [ARG...]
                               print the JSON lines of standard input whose record
                               matches FORMAT (with --count, only how many)
      replay --schema SCHEMA.json [--watches WATCHES.json] [--lists LISTS.json]
                               apply one save per JSON line of standard input to an
                               in-memory object graph; print what each save changed,
                               what each watch saw and how each list changed

    run `swift test` for the test suite; see README.md and docs/.
    """
}

/// Reads the command-line arguments after a format as format arguments, or
/// reports the first bad one on standard error and returns nil (usage error).
func formatArguments(_ texts: some Sequence<String>) -> [FilterValue]? {
  var values: [FilterValue] = []
  for text in texts {
    do {
      values.append(try formatArgument(text))
    } catch {
      Console.error("context-watch: argument '\(text)': \(error)")
      return nil
    }
  }
  return values
}

/// Reads a command-line argument as a format argument: JSON when it is JSON
/// (`30`, `true`, `"30"`, `[1, 2]`, `{"$date": 0}`), else the text itself.
func formatArgument(_ text: String) throws(JSONValue.ConversionError) -> FilterValue {
  guard let json = try? JSONValue.parse(text) else { return .string(text) }
  return try json.filterValue()
}
