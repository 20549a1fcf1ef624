/// An element of an ``OrderStatisticTree``: its weight, summed by the
/// tree's nodes for ``OrderStatisticTree/weight(before:)``.
protocol OrderStatisticElement {
  var weight: Int { get }
}
