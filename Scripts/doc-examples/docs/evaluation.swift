// What docs/evaluation.md's block takes as given: records to filter, and the
// typed objects its resolver reads.
import PredicateDSL

public struct Person: Sendable {
  public var name: String
  public var age: Int64
}

public let records: [FilterValue] = [["name": "Åsa", "age": 31], ["name": "Bo", "age": 29]]
