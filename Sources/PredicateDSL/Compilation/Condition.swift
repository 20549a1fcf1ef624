/// A compiled predicate: a constant, or a test of the object (with a probe
/// when it is a fused comparison built from a ``KeyReader``).
enum Condition<Object>: Sendable {
  case constant(Bool)
  case test(Test<Object>, probe: Probe<Object>? = nil)
}
