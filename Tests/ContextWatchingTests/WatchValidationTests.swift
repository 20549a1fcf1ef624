import ObjectGraph
import PredicateDSL
import Testing

@testable import ContextWatching

@Suite("Watcher: validation")
struct WatchValidationTests {
  @Test func unknownEntitiesAreRefused() throws {
    let rig = Rig()
    let error = try #require(throws: WatchError.self) { try rig.watcher.watch("Persn", where: "age > 3") }
    #expect(error.code == .unknownEntity)
    #expect(
      error.description
        == "watch 'Persn age > 3' on Persn: unknown entity 'Persn' (entities: Company, Department, Person, Employee)")
    #expect(rig.watcher.watchCount == 0)
  }

  @Test func everyEntityOfAnEmptySchemaIsRefused() throws {
    let watcher = ContextWatcher(schema: try ObjectSchema([]), target: .handler(on: .immediate) { _ in })
    let error = try #require(throws: WatchError.self) { try watcher.watchEveryEntity(where: "TRUEPREDICATE") }
    #expect(error.code == .invalidOptions)
    #expect(error.description == "watch 'every entity TRUEPREDICATE': the schema has no entities to watch")
    #expect(watcher.watchCount == 0)
  }

  @Test func unknownKeysAreRefusedWithThePosition() throws {
    let rig = Rig()
    var options = WatchOptions()
    options.label = "seniors"
    let error = try #require(throws: WatchError.self) {
      try rig.watcher.watch("Person", where: "name == 'x' AND agee > 3", options: options)
    }
    #expect(error.code == .unknownKey)
    #expect(error.key == "agee" && error.entity == "Person" && error.watch == "seniors")
    #expect(error.description == "watch 'seniors' on Person: Person has no key 'agee' (did you mean 'age'?) at 1:17")
    #expect(error.detailedDescription().hasPrefix("watch 'seniors' on Person:\nerror: Person has no key 'agee'"))
    #expect(error.detailedDescription().contains("^^^^"))
    // The indexed conjunct does not hide an error in the rest, nor the other way round.
    #expect(throws: WatchError.self) { try rig.watcher.watch("Person", where: "agee == 3 AND name == 'x'") }
    #expect(throws: WatchError.self) { try rig.watcher.watch("Person", where: "employer.nme == 'x'") }
    #expect(rig.watcher.watchCount == 0)
  }

  @Test func typeErrorsAndSyntaxErrorsAreRefused() throws {
    let rig = Rig()
    let typed = try #require(throws: WatchError.self) { try rig.watcher.watch("Person", where: "age BEGINSWITH '3'") }
    #expect(typed.code == .invalidPredicate && typed.key == "age")
    // Indexed conjuncts are checked too.
    for format in ["age == 'x'", "age IN {1, 'x'}", "name == 3 AND age > 1", "city == 'Oslo' AND age > 'x'"] {
      let error = try #require(throws: WatchError.self, "\(format)") { try rig.watcher.watch("Person", where: format) }
      #expect(error.code == .invalidPredicate, "\(format)")
      #expect(error.message.contains("never equal") || error.message.contains("cannot be ordered"), "\(error.message)")
    }
    // An equality that does not fit is not indexed; the error still points at it.
    for (format, column) in [("age > 1 AND name == 3", 13), ("city IN {'a', 2} AND age > 1", 1)] {
      let error = try #require(throws: WatchError.self, "\(format)") { try rig.watcher.watch("Person", where: format) }
      #expect(error.location?.column == column, "\(format): \(error.message) at \(String(describing: error.location))")
      #expect(error.key == (column == 1 ? "city" : "name"), "\(format)")
    }
    let syntax = try #require(throws: WatchError.self) { try rig.watcher.watch("Person", where: "age >") }
    #expect(syntax.code == .invalidPredicate)
    #expect(syntax.location?.column == 6)
    let variable = try #require(throws: WatchError.self) { try rig.watcher.watch("Person", where: "age > $minimum") }
    #expect(variable.message == "no value for variable $minimum")
    #expect(rig.watcher.watchCount == 0)
  }

  @Test func keyOptionsAreChecked() throws {
    let rig = Rig()
    let both = try #require(throws: WatchError.self) {
      try rig.watcher.watch(
        "Person", where: "age > 3", options: WatchOptions(watchedKeys: ["age"], ignoredKeys: ["city"]))
    }
    #expect(both.code == .invalidOptions)
    let unknown = try #require(throws: WatchError.self) {
      try rig.watcher.watch("Person", where: "age > 3", options: WatchOptions(watchedKeys: ["height"]))
    }
    #expect(unknown.code == .unknownKey && unknown.key == "height")
    #expect(rig.watcher.watchCount == 0)
  }

  /// Options are a value: each property reads back what was set, copies
  /// do not share changes, and equality and hashing see every option,
  /// whichever way it was set.
  @Test func watchOptionsAreValues() {
    var options = WatchOptions()
    #expect(
      options.watchedKeys == nil && options.ignoredKeys.isEmpty && options.objectIDs == nil && options.label == nil)
    let original = options
    options.ignoredKeys = ["lastSeen"]
    options.label = "seniors"
    options.objectIDs = [ObjectID(rawValue: 7)]
    #expect(options.ignoredKeys == ["lastSeen"] && options.label == "seniors")
    #expect(options.objectIDs == [ObjectID(rawValue: 7)] && options.watchedKeys == nil)
    #expect(original == WatchOptions() && original != options)
    let built = WatchOptions(ignoredKeys: ["lastSeen"], objectIDs: [ObjectID(rawValue: 7)], label: "seniors")
    #expect(built == options && built.hashValue == options.hashValue)
    var copy = options
    copy.label = nil
    #expect(copy != options && options.label == "seniors")
    copy.ignoredKeys = []
    copy.objectIDs = nil
    #expect(copy == original && copy.hashValue == original.hashValue)
    #expect(WatchOptions(events: [.entered]) != WatchOptions())
    #expect(Set([options, built, original, copy]).count == 2)
  }

  @Test func tokensRemoveTheirWatches() throws {
    let rig = Rig()
    var token: WatchToken? = try rig.watcher.watch("Person", where: "age > 3")
    let other = try rig.watcher.watch("Person", where: "age > 3")
    #expect(rig.watcher.watchCount == 2)
    #expect(token!.id < other.id)
    token = nil
    #expect(rig.watcher.watchCount == 1)
    other.cancel()
    other.cancel()
    #expect(rig.watcher.watchCount == 0)
    #expect(rig.watcher.label(of: other.id) == nil)
  }

  /// Identifiers are numbered in registration order and find their watch
  /// directly; a watch that is gone is never found again, not even when a
  /// later watch takes its place in the tables.
  @Test func identifiersOutliveTheirWatches() throws {
    let rig = Rig()
    let first = try rig.watcher.watch("Person", where: "age > 3", options: WatchOptions(label: "first"))
    let second = try rig.watcher.watch("Person", where: "age > 4", options: WatchOptions(label: "second"))
    #expect(first.id.number == 1 && second.id.number == 2)
    #expect(first.id.description == "watch 1" && first.id < second.id)
    first.cancel()
    let third = try rig.watcher.watch("Person", where: "age > 5", options: WatchOptions(label: "third"))
    #expect(third.id.number == 3 && second.id < third.id)
    // The third took the first's place: the first's identifier finds nothing
    // and removes nothing.
    #expect(rig.watcher.label(of: first.id) == nil)
    rig.watcher.removeWatch(first.id)
    #expect(rig.watcher.watchCount == 2)
    #expect(rig.watcher.label(of: third.id) == "third" && rig.watcher.label(of: second.id) == "second")
    // Identifiers no watcher handed out find nothing either.
    for raw: UInt64 in [0, 1, UInt64(WatchID.maximumWatchCount - 1), .max] {
      #expect(rig.watcher.label(of: WatchID(rawValue: raw)) == nil, "\(raw)")
      rig.watcher.removeWatch(WatchID(rawValue: raw))
    }
    #expect(rig.watcher.watchCount == 2)
    let changes = try #require(
      try rig.save { context in try context.insert("Person", values: ["name": "A", "age": 10]) })
    #expect(changes.attribution.map { $0.matches.map(\.watch) } == [[second.id, third.id]])
  }
}

@Suite("Watcher: predicate limits")
struct WatcherPredicateLimitTests {
  @Test func aTenMegabytePredicateIsRefusedBeforeItIsParsed() throws {
    let rig = Rig()
    let format = "name == '" + String(repeating: "a", count: 10_000_000) + "'"
    var options = WatchOptions()
    options.label = "huge"
    let error = try #require(throws: WatchError.self) {
      try rig.watcher.watch("Person", where: format, options: options)
    }
    #expect(error.code == .invalidPredicate)
    #expect(error.message == "the text is 10000010 bytes long, more than the limit of 1048576 bytes")
    #expect(rig.watcher.watchCount == 0)
  }

  @Test func theLimitIsSetPerWatcher() throws {
    let rig = Rig(options: WatcherOptions(predicateLimits: PredicateLimits(maximumLength: 10)))
    #expect(throws: Never.self) { _ = try rig.watcher.watch("Person", where: "age > 3") }
    let error = try #require(throws: WatchError.self) {
      try rig.watcher.watchEveryEntity(where: "name == 'Alice'")
    }
    #expect(error.message == "the text is 15 bytes long, more than the limit of 10 bytes")
  }

  @Test func aRegexOverItsBudgetIsAFailureNotANoMatch() throws {
    let rig = Rig()
    let token = try rig.watcher.watch("Person", where: "name MATCHES '(a|a)*b|a*!'")
    let changes = try #require(
      try rig.save { context in
        try context.insert("Person", values: ["name": .string(String(repeating: "a", count: 30) + "!"), "age": 1])
      })
    #expect(changes.failures.count == 1)
    #expect(changes.failures.first?.watch == token.id)
    #expect(changes.failures.first?.error.code == .limitExceeded)
  }

  @Test func theWatchersLimitsSetItsPatternsBudget() throws {
    // Sixteen `a`s take a few hundred progress reports: over a budget of
    // one, within one of a million.
    let name = FilterValue.string(String(repeating: "a", count: 16) + "!")
    for (budget, fails) in [(1, true), (1_000_000, false)] {
      let rig = Rig(options: WatcherOptions(predicateLimits: PredicateLimits(regexBudget: budget)))
      let token = try rig.watcher.watch("Person", where: "name MATCHES '(a|a)*b|a*!'")
      let changes = try #require(
        try rig.save { context in try context.insert("Person", values: ["name": name, "age": 1]) })
      #expect(changes.failures.count == (fails ? 1 : 0), "budget \(budget)")
      #expect(changes.inserted.count == (fails ? 0 : 1), "budget \(budget)")
      withExtendedLifetime(token) {}
    }
  }
}
