// What docs/object-graph.md's blocks take as given: the modules, the schema
// and context its first blocks build, and a snapshot's JSON.
@_exported import Dispatch
@_exported import Foundation
@_exported import ObjectGraph

public let schema = try! ObjectSchema([
  EntityDescription(
    "Company", attributes: [.init("name", .string)],
    relationships: [.toMany("employees", destination: "Person", inverse: "employer", deleteRule: .deny)]),
  EntityDescription(
    "Person", attributes: [.init("name", .string), .init("age", .integer, isOptional: true, defaultValue: 0)],
    relationships: [.toOne("employer", destination: "Company", inverse: "employees")]),
])
public let context = ObjectContext(schema: schema)
public let data = Data(#"{"entity":"Person","id":1,"values":{"name":"Ann"}}"#.utf8)
