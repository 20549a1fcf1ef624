// The live-query server: `live-query-server` alone serves the demo (an
// embedded context, a writer, demo tokens) at http://127.0.0.1:8080.
// See docs/live-queries.md.

import ArgumentReading
import Foundation
import LiveQueryCore
import LiveQueryService
import Logging
import ObjectGraph

LoggingSystem.bootstrap { label in
  var handler = StreamLogHandler.standardError(label: label)
  handler.logLevel = ProcessInfo.processInfo.environment["LOG_LEVEL"].flatMap(Logger.Level.init(rawValue:)) ?? .info
  return handler
}

let exitCode: Int32
do {
  let options = try ServerOptions.parse(Array(CommandLine.arguments.dropFirst()))
  if options.showsHelp {
    print(ServerOptions.usage)
    exitCode = 0
  } else {
    exitCode = try await ServerCommand(options: options).run()
  }
} catch let error as ServerOptions.UsageError {
  FileHandle.standardError.write(Data("live-query-server: \(error.message)\n\(ServerOptions.usage)\n".utf8))
  exitCode = 2
}
exit(exitCode)
