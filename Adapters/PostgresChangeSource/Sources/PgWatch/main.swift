// `pg-watch`: watches a PostgreSQL database through its change stream.
//
//   pg-watch watch --schema SCHEMA.json --watches WATCHES.json [--slot NAME] [--from POSITION]
//                  [--read stream|poll]
//   pg-watch demo
//
// See docs/postgres.md.
import Foundation

let usage = """
  usage: pg-watch watch --schema SCHEMA.json --watches WATCHES.json [--slot NAME] [--from POSITION]
                       [--read stream|poll]
         pg-watch demo
  """

let arguments = Array(CommandLine.arguments.dropFirst())
let status: Int32
switch arguments.first {
case "watch": status = await WatchCommand.run(Array(arguments.dropFirst()))
case "demo" where arguments.count == 1: status = await DemoCommand.run()
default:
  Output.error(usage)
  status = 64
}
exit(status)
