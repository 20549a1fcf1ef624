// libFuzzer entry point for the predicate parser. Built by
// Scripts/fuzz-parser.sh together with the PredicateDSL sources as one
// module. Checks, for every input:
// - parsing never crashes or hangs (libFuzzer's -timeout catches hangs);
// - an error points inside its input and renders;
// - a predicate that parses prints to text that parses back to an equal
//   tree, and printing that gives the same text (a fixed point).

/// Runs the checks on one input; libFuzzer calls it for each.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
  let bytes = UnsafeBufferPointer(start: data, count: size)
  // The first byte chooses the format arguments, so %K, %@ and %d paths run.
  let choices: [[FilterValue]] = [[], ["name"], ["a.b", 42], [1.5, ["x", "y"], "k"]]
  let arguments = size > 0 ? choices[Int(bytes[0]) % choices.count] : []
  let text = String(decoding: size > 0 ? UnsafeBufferPointer(rebasing: bytes[1...]) : bytes, as: UTF8.self)
  do {
    let syntax = try PredicateParser.parse(text, arguments: arguments)
    let printed = syntax.description
    let again: PredicateSyntax
    do {
      do {
        again = try PredicateParser.parse(printed)
      } catch  where error.code == .nestingTooDeep {
        // An AND inside an OR gains parentheses in the printout, so near
        // the limit the printout may need up to twice the depth.
        again = try PredicateParser.parse(
          printed, limits: PredicateLimits(maximumDepth: 2 * PredicateParser.defaultMaximumDepth))
      }
    } catch {
      fatalError(
        "printout does not parse\ninput: \(text.debugDescription)\nprinted: \(printed.debugDescription)\n\(error)")
    }
    // NaN is not equal to itself; only a NaN argument can bring one in.
    if again != syntax, !printed.contains("\"nan\"") {
      fatalError("round trip changed the tree\ninput: \(text.debugDescription)\nprinted: \(printed.debugDescription)")
    }
    let reprinted = again.description
    if reprinted != printed {
      fatalError(
        "printout is not a fixed point\nprinted: \(printed.debugDescription)\nreprinted: \(reprinted.debugDescription)")
    }
  } catch {
    let count = text.utf8.count
    if !(0...count).contains(error.location.utf8Offset) || error.location.line < 1
      || error.location.column < 1 || error.length < 1
    {
      fatalError("error outside its input\ninput: \(text.debugDescription)\n\(error)")
    }
    _ = error.detailedDescription()
    _ = error.description
  }
  return 0
}
