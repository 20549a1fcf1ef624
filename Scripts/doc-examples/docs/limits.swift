// What docs/limits.md's blocks take as given: the modules, text from a client,
// and the context and delivery target of a watcher.
@_exported import ContextWatching
@_exported import ObjectGraph
@_exported import PredicateDSL

public let clientText = "age > 30"
public let context = ObjectContext(
  schema: try! ObjectSchema([EntityDescription("Person", attributes: [.init("age", .integer)])]))
public let target = DeliveryTarget.handler(on: .immediate) { changes in print(changes) }
