// What docs/monitors.md's blocks take as given: a context of people in
// departments, and Ann, one of them.
@_exported import ContextWatching
@_exported import ObjectGraph

public let context = ObjectContext(
  schema: try! ObjectSchema {
    EntityDescription("Department") {
      AttributeDescription("name", .string)
      RelationshipDescription.toMany("people", destination: "Person", inverse: "department")
    }
    EntityDescription("Person") {
      AttributeDescription("name", .string)
      AttributeDescription("city", .string)
      AttributeDescription("age", .integer)
      RelationshipDescription.toOne("department", destination: "Department", inverse: "people")
    }
  })
public let ann = try! context.performAndWait { context in
  let ann = try context.insert("Person", values: ["name": "Ann", "city": "Oslo", "age": 31])
  try context.save()
  return ann.snapshot()
}
