// What the ContextWatching catalog's block takes as given: a context of people.
import ObjectGraph

public let context = ObjectContext(
  schema: try! ObjectSchema([EntityDescription("Person", attributes: [.init("name", .string), .init("age", .integer)])]))
