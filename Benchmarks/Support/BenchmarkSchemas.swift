// The object graph schemas the benchmarks store their people in, one
// definition each, so that every figure of the same kind is measured on the
// same entity.

public import ObjectGraph

/// The schemas of the benchmarks' people.
public enum BenchmarkSchemas {
  /// People who live in cities: `name`, `city` (string), `age` (integer),
  /// `score` (double). The watcher's, the monitors' and the records'
  /// benchmarks list and watch these.
  public static let cityPeople = try! ObjectSchema([
    EntityDescription(
      "Person",
      attributes: [.init("name", .string), .init("city", .string), .init("age", .integer), .init("score", .double)])
  ])

  /// People with a flag and a birth date: `name` (string), `age`
  /// (integer), `score` (double), `active` (boolean), `born` (date). The
  /// object graph's benchmarks store and fetch these.
  public static let datedPeople = try! ObjectSchema([
    EntityDescription(
      "Person",
      attributes: [
        .init("name", .string), .init("age", .integer), .init("score", .double), .init("active", .boolean),
        .init("born", .date),
      ])
  ])
}
