/// Which signs of a three-way comparison an ordering operator accepts.
@usableFromInline
struct Ordering: Sendable {
  let accepts: (less: Bool, same: Bool, greater: Bool)

  init(_ operation: ComparisonSyntax.Operator) {
    switch operation {
    case .less: accepts = (true, false, false)
    case .lessOrEqual: accepts = (true, true, false)
    case .greater: accepts = (false, false, true)
    case .greaterOrEqual: accepts = (false, true, true)
    case .equal: accepts = (false, true, false)
    default: accepts = (true, false, true)
    }
  }

  func callAsFunction(_ sign: Int) -> Bool {
    sign < 0 ? accepts.less : (sign == 0 ? accepts.same : accepts.greater)
  }
}
