// context-watch: the command line of ContextWatcher.
//
//   context-watch demo [--saves N | predicates]  watch a built-in context at work
//   context-watch check FORMAT [ARG...]    print the canonical form, or the error
//   context-watch eval --cases             answer JSON-line test cases
//   context-watch eval [--count] FORMAT    filter JSON lines by a predicate
//   context-watch replay --schema S.json [--watches W.json] [--lists L.json]
//                                          apply JSON change lines
//
// Exit status: 0 on success, 1 when the input was rejected, 64 for a usage
// error.

import Foundation

let arguments = Array(CommandLine.arguments.dropFirst())
let status: Int32
switch arguments.first {
case "demo":
  status = DemoCommand.run(Array(arguments.dropFirst()))
case "check":
  status = CheckCommand.run(Array(arguments.dropFirst()))
case "eval":
  status = EvalCommand.run(Array(arguments.dropFirst()))
case "replay":
  status = ReplayCommand.run(Array(arguments.dropFirst()))
case "help", "-h", "--help":
  print(Usage.text)
  status = 0
case let command?:
  Console.error("context-watch: unknown command '\(command)'\n\n\(Usage.text)")
  status = 64
case nil:
  Console.error(Usage.text)
  status = 64
}
Console.flush()
exit(status)
