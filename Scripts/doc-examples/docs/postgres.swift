// What docs/postgres.md's block takes as given: the schema of the replica.
import ObjectGraph

public let schema = try! ObjectSchema([
  EntityDescription(
    "Company", attributes: [.init("name", .string)],
    relationships: [.toMany("employees", destination: "Person", inverse: "employer")]),
  EntityDescription(
    "Person", attributes: [.init("name", .string)],
    relationships: [.toOne("employer", destination: "Company", inverse: "employees")]),
])
