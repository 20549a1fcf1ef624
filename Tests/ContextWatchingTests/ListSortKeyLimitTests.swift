// Repeated sort keys and the limit on distinct ones (through @testable
// import, to see what the resolved order reads).

import ObjectGraph
import PredicateDSL
import Testing

@testable import ContextWatching

@Suite("List monitor: repeated sort keys and their limit")
struct ListSortKeyLimitTests {
  /// People in two companies, with names that tie, so that every key of
  /// the order matters.
  private func context() throws -> ObjectContext {
    let context = WatcherFixtures.context()
    try context.performAndWait { context in
      let acme = try context.insert("Company", values: ["name": "Acme"])
      let zeta = try context.insert("Company", values: ["name": "Zeta"])
      for (index, name) in ["Bo", "Al", "Bo", "Cy", "Al", "Di"].enumerated() {
        let person = try context.insert("Person", values: ["name": .string(name), "age": .int(Int64(index % 3))])
        try person.setRelationship("employer", to: index % 2 == 0 ? zeta : acme)
      }
      _ = try context.save()
    }
    return context
  }

  /// 2,000 copies of `employer.name` (the first descending, the rest
  /// alternating) and 20,000 of `name`: the order reads two keys, one
  /// relationship path, each in its first occurrence's direction.
  @Test func aRepeatedKeyIsReadOnceInItsFirstDirection() throws {
    let repeated: [ObjectFetchRequest.SortKey] =
      (0..<2_000).map { ObjectFetchRequest.SortKey("employer.name", ascending: $0 % 2 == 1) }
      + (0..<20_000).map { _ in .ascending("name") }
    let order = try ListOrder(ListRequest("Person", sortedBy: repeated), schema: WatcherFixtures.schema)
    #expect(order.keys.count == 2)
    #expect(order.keys.map(\.ascending) == [false, true])
    #expect(order.paths.map(\.keyPath) == ["employer.name"])
  }

  /// A list whose keys repeat lists, and follows saves, exactly as the
  /// list of its distinct keys does.
  @Test func aListWithRepeatedKeysOrdersAsItsDistinctKeys() throws {
    let context = try context()
    let distinct: [ObjectFetchRequest.SortKey] = [.descending("employer.name"), .ascending("name"), .descending("age")]
    let repeated: [ObjectFetchRequest.SortKey] =
      [.descending("employer.name"), .ascending("name")] + Array(repeating: .ascending("employer.name"), count: 2_000)
      + Array(repeating: .descending("name"), count: 2_000) + [.descending("age"), .ascending("age")]
    let expected = try ListMonitor(
      context: context, request: ListRequest("Person", sortedBy: distinct, sectionedBy: "employer.name"),
      scheduler: .immediate)
    let monitor = try ListMonitor(
      context: context, request: ListRequest("Person", sortedBy: repeated, sectionedBy: "employer.name"),
      scheduler: .immediate)
    #expect(monitor.objectIDs == expected.objectIDs)
    #expect(monitor.sections.map(\.name) == ["Zeta", "Acme"])
    try context.performAndWait { context in
      let people = try context.fetch(ObjectFetchRequest(entity: "Person"))
      try people[0].setValue("Ab", forKey: "name")
      try people[3].setValue(.int(9), forKey: "age")
      let acme = try context.fetch(ObjectFetchRequest(entity: "Company", predicate: "name == 'Acme'"))[0]
      try people[2].setRelationship("employer", to: acme)
      _ = try context.save()
    }
    #expect(monitor.objectIDs == expected.objectIDs)
    let fetched = try context.performAndWait { context in
      try context.fetch(
        ObjectFetchRequest(
          entity: "Person", sortedBy: [.ascending("name")] + Array(repeating: .descending("name"), count: 20_000))
      )
      .map(\.objectID)
    }
    let plain = try context.performAndWait { context in
      try context.fetch(ObjectFetchRequest(entity: "Person", sortedBy: [.ascending("name")])).map(\.objectID)
    }
    #expect(fetched == plain)
  }

  /// 64 distinct keys pass the limit (and are then resolved: these do
  /// not exist); 65 are refused before any is resolved, however often
  /// each repeats, with the count, the limit and the first key past it.
  @Test func moreThanSixtyFourDistinctKeysAreRefused() throws {
    let context = WatcherFixtures.context()
    func refusal(_ count: Int) -> MonitorError? {
      let keys = (0..<count).flatMap { index in
        Array(repeating: ObjectFetchRequest.SortKey.ascending(index == 0 ? "name" : "k\(index)"), count: 3)
      }
      do {
        _ = try ListMonitor(
          context: context, request: ListRequest("Person", sortedBy: keys, label: "ranked"), scheduler: .immediate)
        return nil
      } catch {
        return error
      }
    }
    #expect(ListRequest.maximumSortKeyCount == 64)
    #expect(
      refusal(64)?.description
        == "watch 'ranked' on Person: Person has no attribute 'k1' (in the sort key 'k1')")
    let refused = try #require(refusal(65))
    #expect(refused.code == .invalidRequest)
    let error = try #require(refused.watchError)
    #expect(error.code == .invalidOptions)
    #expect(error.key == "k64")
    #expect(refused.message == error.description)
    #expect(
      error.description
        == "watch 'ranked' on Person: the list has 65 distinct sort keys, more than the limit of 64; a repeated key counts once, and 'k64' is the first past the limit"
    )
  }
}
