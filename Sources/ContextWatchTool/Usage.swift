/// The command line's help text.
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
