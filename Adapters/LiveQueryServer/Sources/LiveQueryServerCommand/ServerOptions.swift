import ArgumentReading

/// The command line of `live-query-server`.
struct ServerOptions {
  typealias UsageError = ArgumentReader.UsageError

  static let usage = """
    usage: live-query-server [options]
      --host ADDRESS             listen on ADDRESS (default 127.0.0.1)
      --port N                   listen on port N; 0 picks a free one (default 8080)
      --policy FILE              the read policy (default: the demo's; required with --postgres)
      --postgres                 serve a replica of PostgreSQL tables (libpq's PG* environment
                                 variables) instead of the demo; needs --schema and --policy
      --schema FILE              with --postgres: the schema file of pg-watch (entities, tables)
      --slot NAME                with --postgres: the replication slot (default live_query_server)
      --hs256-secret-env NAME    verify HS256 tokens with the secret in environment variable NAME
      --hs256-secret-file FILE   verify HS256 tokens with the secret in FILE
      --rs256-public-key FILE    verify RS256 tokens with the RSA public key (PEM) in FILE
      --demo-tokens              serve /demo-token even with a secret given (never in production;
                                 refused with --postgres)
      --rate N                   the demo writer's commits a second (default 4)
      --objects N                about how many tasks the demo keeps (default 40)
      --owners N                 the owners the tasks are spread over (default 3)
      --objects-per-commit N     tasks changed per commit (default 1)
      --seed N                   the demo writer's random seed
      --commits N                stop writing after N commits (default: never)
      --priorities N             priorities run from 0 to N-1 (default 10)
      --poll-interval S          serve every subscription by polling it every S seconds, as
                                 Hasura does: the baseline for load tests (default: live)
      --slow-client-timeout S    close a client that does not read for S seconds (default 10)
      --resume-window S          keep a lost connection's session S seconds for it to resume (default 30)
      --replay-bytes N           bytes of sent frames kept per session to send again on resume (default 262144)
      --auth-timeout S           close a connection that sends no auth frame within S seconds (default 10)
      --max-subscriptions N      subscriptions and watches per connection (default 100)
      --outbox-bytes N           bytes waiting per connection before a client is behind (default 1048576)
      --help                     print this
    With no key option the demo makes a random HS256 secret and serves /demo-token;
    --postgres needs a key option.
    The log level comes from LOG_LEVEL (trace, debug, info, notice, warning, error, critical).
    """

  var showsHelp = false
  var host = "127.0.0.1"
  var port = 8080
  var policyPath: String?
  var postgres = false
  var schemaPath: String?
  var slot = "live_query_server"
  var secretVariable: String?
  var secretPath: String?
  var publicKeyPath: String?
  var demoTokens = false
  var rate = 4.0
  var objects = 40
  var owners = 3
  var objectsPerCommit = 1
  var seed: UInt64?
  var commits: Int?
  var priorities = 10
  var pollSeconds: Double?
  var slowClientSeconds = 10.0
  var authenticationSeconds = 10.0
  var resumeSeconds = 30.0
  var replayBytes = 256 * 1024
  var maximumSubscriptions = 100
  var outboxBytes = 1 << 20

  static func parse(_ arguments: [String]) throws(UsageError) -> ServerOptions {
    var options = ServerOptions()
    var reader = ArgumentReader(arguments)
    while let argument = reader.next() {
      switch argument {
      case "--help", "-h": options.showsHelp = true
      case "--host": options.host = try reader.value(of: argument)
      case "--port":
        options.port = try reader.number(of: argument, atLeast: 0)
        guard options.port <= 65535 else { throw UsageError(message: "--port takes 0 to 65535") }
      case "--policy": options.policyPath = try reader.value(of: argument)
      case "--postgres": options.postgres = true
      case "--schema": options.schemaPath = try reader.value(of: argument)
      case "--slot": options.slot = try reader.value(of: argument)
      case "--hs256-secret-env": options.secretVariable = try reader.value(of: argument)
      case "--hs256-secret-file": options.secretPath = try reader.value(of: argument)
      case "--rs256-public-key": options.publicKeyPath = try reader.value(of: argument)
      case "--demo-tokens": options.demoTokens = true
      case "--rate": options.rate = try reader.number(of: argument, atLeast: 0.01)
      case "--objects": options.objects = try reader.number(of: argument, atLeast: 1)
      case "--owners": options.owners = try reader.number(of: argument, atLeast: 1)
      case "--objects-per-commit": options.objectsPerCommit = try reader.number(of: argument, atLeast: 1)
      case "--seed": options.seed = try reader.number(of: argument, atLeast: 0)
      case "--commits": options.commits = try reader.number(of: argument, atLeast: 0)
      case "--priorities": options.priorities = try reader.number(of: argument, atLeast: 1)
      case "--poll-interval": options.pollSeconds = try reader.number(of: argument, atLeast: 0.01)
      case "--slow-client-timeout": options.slowClientSeconds = try reader.number(of: argument, atLeast: 0.5)
      case "--resume-window": options.resumeSeconds = try reader.number(of: argument, atLeast: 0)
      case "--replay-bytes": options.replayBytes = try reader.number(of: argument, atLeast: 0)
      case "--auth-timeout": options.authenticationSeconds = try reader.number(of: argument, atLeast: 0.1)
      case "--max-subscriptions": options.maximumSubscriptions = try reader.number(of: argument, atLeast: 1)
      case "--outbox-bytes": options.outboxBytes = try reader.number(of: argument, atLeast: 1024)
      default: throw UsageError(message: "unknown option '\(argument)'")
      }
    }
    if options.postgres && (options.schemaPath == nil || options.policyPath == nil) {
      throw UsageError(message: "--postgres needs --schema FILE and --policy FILE")
    }
    if !options.postgres && options.schemaPath != nil {
      throw UsageError(message: "--schema is read with --postgres only")
    }
    if options.secretVariable != nil && options.secretPath != nil {
      throw UsageError(message: "give --hs256-secret-env or --hs256-secret-file, not both")
    }
    // Real data is never served behind keys the server made up: the demo's
    // random secret comes with /demo-token, which signs any claims asked for.
    if options.postgres && options.secretVariable == nil && options.secretPath == nil
      && options.publicKeyPath == nil
    {
      throw UsageError(
        message:
          "--postgres needs the tokens' key: --hs256-secret-env NAME, --hs256-secret-file FILE or --rs256-public-key FILE"
      )
    }
    if options.postgres && options.demoTokens {
      throw UsageError(message: "--demo-tokens signs any claims a client asks for: it is refused with --postgres")
    }
    return options
  }
}
