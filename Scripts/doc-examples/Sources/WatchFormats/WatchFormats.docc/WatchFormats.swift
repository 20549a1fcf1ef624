// What the WatchFormats catalog's block takes as given: the modules, and a
// context of people.
@_exported import ObjectGraph

public let context = ObjectContext(
  schema: try! ObjectSchema([EntityDescription("Person", attributes: [.init("name", .string), .init("age", .integer)])]))
