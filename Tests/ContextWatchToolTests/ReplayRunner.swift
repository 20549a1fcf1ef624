import Foundation
import TestSupport

/// Runs `context-watch replay` with `lines` on standard input, the schema
/// and the optional watches and lists files written to temporary files
/// (removed afterwards).
func runReplay(
  _ lines: [String], schema: String, watches: String? = nil, lists: String? = nil
) throws -> CommandRunner.Outcome {
  var files: [URL] = []
  defer { for file in files { try? FileManager.default.removeItem(at: file) } }
  func write(_ text: String, _ name: String) throws -> String {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("\(name)-\(UUID().uuidString).json")
    try Data(text.utf8).write(to: url)
    files.append(url)
    return url.path
  }
  var arguments = ["replay", "--schema", try write(schema, "schema")]
  if let watches { arguments += ["--watches", try write(watches, "watches")] }
  if let lists { arguments += ["--lists", try write(lists, "lists")] }
  return try CommandRunner.run(arguments, input: lines.joined(separator: "\n") + "\n")
}
