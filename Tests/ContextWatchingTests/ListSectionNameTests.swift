import ContextWatching
import ObjectGraph
import PredicateDSL
import Testing

/// The default names of a list's sections: readable, and the same on
/// every machine.
@Suite("List section names")
struct ListSectionNameTests {
  /// The section names of a list of one task per value of `key`.
  static func sectionNames(by key: String, values: [FilterValue]) throws -> [String?] {
    let schema = try ObjectSchema([
      EntityDescription(
        "Task",
        attributes: [
          AttributeDescription("due", .date, isOptional: true),
          AttributeDescription("done", .boolean, isOptional: true),
        ])
    ])
    let context = ObjectContext(schema: schema, name: "sections", notificationCenter: nil)
    try context.performAndWait { context in
      for value in values { _ = try context.insert("Task", values: [key: value]) }
      _ = try context.save()
    }
    let request = ListRequest("Task", sortedBy: [.ascending(key)], sectionedBy: key)
    let monitor = try ListMonitor(context: context, request: request, scheduler: .immediate)
    return monitor.sections.map(\.name)
  }

  @Test func namesBooleanSectionsTrueAndFalse() throws {
    #expect(try Self.sectionNames(by: "done", values: [true, false, .null]) == [nil, "false", "true"])
  }

  /// 725,760,000 seconds after 2001 is 2024-01-01T00:00:00Z; 59 days later
  /// is a leap day.
  @Test func namesDateSectionsInISO8601() throws {
    let names = try Self.sectionNames(
      by: "due",
      values: [
        .date(secondsSinceReferenceDate: 725_760_000),
        .date(secondsSinceReferenceDate: 725_760_000 + 9 * 3600 + 30 * 60),
        .date(secondsSinceReferenceDate: 725_760_000 + 59.25),
        .date(secondsSinceReferenceDate: 0),
        .date(secondsSinceReferenceDate: -978_307_200 - 86_400),
        .date(secondsSinceReferenceDate: 725_760_000 + 86_400 * 59),
      ])
    #expect(
      names == [
        "1969-12-31", "2001-01-01", "2024-01-01", "2024-01-01T00:00:59.250Z", "2024-01-01T09:30:00Z",
        "2024-02-29",
      ])
  }
}
