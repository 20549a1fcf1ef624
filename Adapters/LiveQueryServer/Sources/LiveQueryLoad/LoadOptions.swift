import ArgumentReading

/// The command line of `live-query-load`.
struct LoadOptions {
  typealias UsageError = ArgumentReader.UsageError

  static let usage = """
    usage: live-query-load --port N [options]
      --port N               the server's port on 127.0.0.1
      --secret-env NAME      sign tokens with the HS256 secret in environment variable NAME
      --connections C        WebSocket connections (default 100)
      --subscriptions S      subscriptions in all, spread evenly (default 1000)
      --owners O             users the connections sign in as, u1…uO (default: the server's 3)
      --priorities P         the server's priority range, 0…P-1 (default 10)
      --limit N              each subscription's limit (default 20)
      --warmup S             seconds between the last snapshot and the measurement (default 2)
      --seconds T            seconds measured (default 10)
      --label TEXT           a label printed with the figures
    Prints one JSON line of figures: latencies from each change's commit (its updatedAt) to its
    arrival, and the server's CPU and memory from its /metrics.
    """

  var port = 0
  var secretVariable = "LIVE_QUERY_SECRET"
  var connections = 100
  var subscriptions = 1000
  var owners = 3
  var priorities = 10
  var limit = 20
  var warmup = 2.0
  var seconds = 10.0
  var label = ""
  var showsHelp = false

  static func parse(_ arguments: [String]) throws(UsageError) -> LoadOptions {
    var options = LoadOptions()
    var reader = ArgumentReader(arguments)
    while let argument = reader.next() {
      switch argument {
      case "--help", "-h": options.showsHelp = true
      case "--port": options.port = try reader.number(of: argument, atLeast: 1)
      case "--secret-env": options.secretVariable = try reader.value(of: argument)
      case "--connections": options.connections = try reader.number(of: argument, atLeast: 1)
      case "--subscriptions": options.subscriptions = try reader.number(of: argument, atLeast: 1)
      case "--owners": options.owners = try reader.number(of: argument, atLeast: 1)
      case "--priorities": options.priorities = try reader.number(of: argument, atLeast: 1)
      case "--limit": options.limit = try reader.number(of: argument, atLeast: 1)
      case "--warmup": options.warmup = try reader.number(of: argument, atLeast: 0)
      case "--seconds": options.seconds = try reader.number(of: argument, atLeast: 0.1)
      case "--label": options.label = try reader.value(of: argument)
      default: throw UsageError(message: "unknown option '\(argument)'")
      }
    }
    if !options.showsHelp && options.port == 0 { throw UsageError(message: "--port is required") }
    if options.subscriptions < options.connections {
      throw UsageError(message: "--subscriptions must be at least --connections")
    }
    return options
  }
}
