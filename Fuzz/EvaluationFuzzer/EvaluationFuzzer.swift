// libFuzzer entry point for compiled evaluation against the reference
// interpreter (Tests/TestSupport/ReferenceInterpreter.swift): a differential
// fuzzer. Built by Scripts/fuzz-evaluation.sh together with the PredicateDSL
// sources and the test support it needs, as one module.
//
// An input is 8 bytes of seed, then predicate text. The text is parsed; when
// it does not parse, the seed draws a random predicate instead
// (RandomEvaluation), so both hand-shaped and generated predicates run. The
// seed also draws the variables and four records over the keys the random
// predicates read (`i d s b t n r items dt`). For each record, compiling and
// evaluating must agree with the interpreter: the same Boolean, or both
// failing. A predicate that does not compile is skipped (a constant part
// that always fails is refused at compile time, where the interpreter, which
// folds nothing, may short-circuit past it).

/// Runs the check on one input; libFuzzer calls it for each.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
  let bytes = UnsafeBufferPointer(start: data, count: size)
  var seed: UInt64 = 0
  for byte in bytes.prefix(8) { seed = seed << 8 | UInt64(byte) }
  var random = RandomEvaluation(seed: seed)
  let text = String(decoding: bytes.dropFirst(8), as: UTF8.self)
  let predicate: PredicateSyntax
  if let parsed = try? PredicateParser.parse(text) {
    predicate = parsed
  } else {
    predicate = random.predicate()
  }
  let variables = random.variables()
  guard
    let filter = try? CompiledFilter<FilterValue>(predicate, variables: variables, resolver: RecordKeyResolver())
  else { return 0 }
  for _ in 0..<4 {
    let record = random.record()
    let compiled: Bool?
    do { compiled = try filter.evaluate(record) } catch { compiled = nil }
    let expected: Bool?
    do {
      expected = try ReferenceInterpreter.evaluate(predicate, on: record, variables: variables)
    } catch where error.description == "unsupported" {
      continue  // outside what the interpreter models (UTI operators)
    } catch {
      expected = nil
    }
    if compiled != expected {
      fatalError(
        """
        compiled evaluation disagrees with the reference interpreter
        predicate: \(predicate)
        variables: \(variables)
        record: \(record)
        compiled: \(compiled.map(String.init) ?? "failure"), reference: \(expected.map(String.init) ?? "failure")
        """)
    }
  }
  return 0
}
