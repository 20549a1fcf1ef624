import Dispatch
import ObjectGraph
import PredicateDSL

/// A company with departments and people; employees are people with a
/// salary. Departments cascade from their company; a company cannot be
/// deleted while it has employees (deny); a person's passport is one-to-one.
enum Fixtures {
  static let schema: ObjectSchema = {
    do {
      return try ObjectSchema([
        EntityDescription(
          "Company",
          attributes: [.init("name", .string), .init("founded", .date, isOptional: true)],
          relationships: [
            .toMany("employees", destination: "Person", inverse: "employer", deleteRule: .deny),
            .toMany("departments", destination: "Department", inverse: "company", deleteRule: .cascade),
          ]),
        EntityDescription(
          "Department",
          attributes: [.init("name", .string)],
          relationships: [
            .toOne("company", destination: "Company", inverse: "departments", isOptional: false),
            .toMany("members", destination: "Person", inverse: "department", deleteRule: .nullify),
          ]),
        EntityDescription(
          "Person",
          attributes: [
            .init("name", .string),
            .init("age", .integer, isOptional: true, defaultValue: 0),
            .init("score", .double, isOptional: true),
            .init("active", .boolean, isOptional: true, defaultValue: true),
          ],
          relationships: [
            .toOne("employer", destination: "Company", inverse: "employees"),
            .toOne("department", destination: "Department", inverse: "members"),
            .toOne("passport", destination: "Passport", inverse: "owner", deleteRule: .cascade),
          ],
          ignoredKeys: ["score"]),
        EntityDescription("Employee", parent: "Person", attributes: [.init("salary", .double, isOptional: true)]),
        EntityDescription(
          "Passport", attributes: [.init("number", .string)],
          relationships: [.toOne("owner", destination: "Person", inverse: "passport")]),
      ])
    } catch {
      fatalError("the fixture schema is invalid: \(error)")
    }
  }()

  /// A context on a queue of its own, without NotificationCenter posts.
  static func context(_ name: String = "test") -> ObjectContext {
    ObjectContext(schema: schema, name: name, notificationCenter: nil)
  }
}

extension ObjectContext {
  /// Runs `work` on the context's queue, for tests.
  func run<T>(_ work: (ObjectContext) throws -> T) rethrows -> T {
    try performAndWait { context in try work(context) }
  }
}
