/// The operands of a probed group of three to five, captured as one value.
struct ProbedOperands<Object>: Sendable {
  let t1: Test<Object>
  let p1: Probe<Object>
  let t2: Test<Object>
  let p2: Probe<Object>
  let t3: Test<Object>
  let p3: Probe<Object>
  let t4: Test<Object>?
  let p4: Probe<Object>?
  let t5: Test<Object>?
  let p5: Probe<Object>?
}
