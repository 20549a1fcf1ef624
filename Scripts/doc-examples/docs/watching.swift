// What docs/watching.md's blocks take as given: the modules, a context of
// people, and the queue an audit log writes on.
@_exported import ContextWatching
import Dispatch
@_exported import ObjectGraph

public let context = ObjectContext(
  schema: try! ObjectSchema([
    EntityDescription(
      "Person", attributes: [.init("name", .string), .init("age", .integer), .init("salary", .double)])
  ]))
public let auditQueue = DispatchQueue(label: "audit")

/// A context of tasks with due dates, for the section on time-relative predicates.
public let taskContext = ObjectContext(
  schema: try! ObjectSchema([
    EntityDescription(
      "Task",
      attributes: [
        .init("title", .string), .init("dueDate", .date, isOptional: true),
        .init("done", .boolean, defaultValue: false),
      ])
  ]))
