// What README.md's blocks take as given: the context the first block watches
// (the third builds one like it, and the fourth continues the third).
@_exported import ObjectGraph

public let context = ObjectContext(
  schema: try! ObjectSchema([
    EntityDescription("Person", attributes: [.init("name", .string), .init("age", .integer, isOptional: true)])
  ]))
