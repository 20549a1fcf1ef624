import PredicateDSL
import Testing

/// Objects with a schema: the shape the object graph gives the compiler.
final class Person: Sendable {
  let values: [FilterValue]
  let department: Department?

  init(name: FilterValue, age: FilterValue, tags: [String] = [], department: Department? = nil) {
    values = [name, age, .array(tags.map(FilterValue.string))]
    self.department = department
  }
}

final class Department: Sendable {
  let name: String
  init(name: String) { self.name = name }
}

/// Resolves `name`, `age`, `tags` and `department.name` to slots, with types.
struct PersonResolver: KeyResolver {
  static let slots: [String: (Int, AttributeType)] = ["name": (0, .string), "age": (1, .integer)]

  func resolve(_ path: KeyPathReference) throws(PredicateCompileError) -> ResolvedKey<Person> {
    let key = path.components[0]
    if let (slot, type) = Self.slots[key] {
      return ResolvedKey(consuming: 1, type: .attribute(type), entity: "Person") { $0.values[slot] }
    }
    if key == "tags" {
      return ResolvedKey(consuming: 1, type: .collection(of: .attribute(.string)), entity: "Person") { $0.values[2] }
    }
    if key == "department" {
      guard path.components.count > 1 else {
        return ResolvedKey(consuming: 1, type: .object(entity: "Department"), entity: "Person") {
          $0.department.map { .string($0.name) } ?? .null
        }
      }
      guard path.components[1] == "name" else {
        throw .unknownKey(path, component: 1, entity: "Department", candidates: ["name"])
      }
      return ResolvedKey(consuming: 2, type: .attribute(.string), entity: "Department") {
        $0.department.map { .string($0.name) } ?? .null
      }
    }
    throw .unknownKey(path, entity: "Person", candidates: ["name", "age", "tags", "department"])
  }
}

@Suite("Compilation")
struct CompilationTests {
  let alice = Person(name: "Alice", age: 31, tags: ["swift"], department: Department(name: "R&D"))
  let bob = Person(name: "Bob", age: nil)

  func compile(_ format: String, _ arguments: [FilterValue] = []) throws -> CompiledFilter<Person> {
    try CompiledFilter(format, arguments: arguments, resolver: PersonResolver())
  }

  func compileError(_ format: String) -> PredicateCompileError? {
    do {
      _ = try compile(format)
      return nil
    } catch let error as PredicateCompileError {
      return error
    } catch {
      Issue.record("unexpected \(error)")
      return nil
    }
  }

  @Test func evaluatesTypedObjects() throws {
    let filter = try compile("age > 30 AND name BEGINSWITH[c] 'a' AND ANY tags == 'swift' AND department.name == 'R&D'")
    #expect(try filter.evaluate(alice))
    #expect(try !filter.evaluate(bob))
    #expect(try compile("age == nil").filter([alice, bob]).map(\.values[0]) == ["Bob"])
    #expect(try compile("30 < age").evaluate(alice))
    #expect(try compile("age IN {30, 31}").evaluate(alice))
    #expect(try compile("age BETWEEN {30, 40.5}").evaluate(alice))
    #expect(try compile("tags CONTAINS 'swift' AND tags.@count == 1").evaluate(alice))
    #expect(try compile("department == nil").evaluate(bob))
  }

  @Test func unknownKeysNameTheKeyTheEntityAndThePosition() throws {
    let error = try #require(compileError("name == 'x' AND agee > 3"))
    #expect(error.code == .unknownKey)
    #expect(error.message == "Person has no key 'agee' (did you mean 'age'?)")
    #expect(error.key == "agee")
    #expect(error.entity == "Person")
    #expect(error.range == SyntaxRange(16, 20))
    #expect(error.description == "predicate:1:17: error: Person has no key 'agee' (did you mean 'age'?)")
    #expect(
      error.detailedDescription() == """
        error: Person has no key 'agee' (did you mean 'age'?)
         --> predicate:1:17
          |
        1 | name == 'x' AND agee > 3
          |                 ^^^^
        """)
    let nested = try #require(compileError("department.nmae == 'x'"))
    #expect(nested.message == "Department has no key 'nmae' (did you mean 'name'?)")
    #expect(nested.key == "department.nmae")
    #expect(nested.entity == "Department")
  }

  @Test(
    "operators that cannot apply to a key's type are compile errors",
    arguments: [
      ("age BEGINSWITH '3'", "BEGINSWITH cannot apply to integer key 'age' of Person: it needs a string"),
      ("name > 3", "string key 'name' of Person cannot be ordered against integer 3"),
      ("3 < name", "integer 3 cannot be ordered against string key 'name' of Person"),
      (
        "age == '30'",
        "integer key 'age' of Person is never equal to string \"30\": no coercion between number and string"
      ),
      ("ANY age > 3", "ANY needs a collection, but integer key 'age' of Person is not one"),
      (
        "tags > 'a'",
        "> cannot apply to collection of string key 'tags' of Person as a whole; use ANY, ALL or NONE to compare its elements"
      ),
      ("ANY tags > 3", "string key 'tags' of Person cannot be ordered against integer 3"),
      (
        "tags CONTAINS 3",
        "an element of collection of string key 'tags' of Person is never equal to integer 3: no coercion between string and number"
      ),
      (
        "age IN {1, 'x'}",
        "integer key 'age' of Person is never equal to string \"x\": no coercion between number and string"
      ),
      ("name BETWEEN {1, 2}", "string key 'name' of Person cannot be ordered against integer 1"),
      ("age LIKE 'x*'", "LIKE cannot apply to integer key 'age' of Person: it needs a string"),
      ("department.name MATCHES 3", "MATCHES needs a string, found integer 3"),
      (
        "name == age",
        "string key 'name' of Person is never equal to integer key 'age' of Person: no coercion between string and number"
      ),
    ])
  func typeErrors(format: String, message: String) throws {
    let error = try #require(compileError(format))
    #expect(error.code == .typeMismatch, "\(format)")
    #expect(error.message == message, "\(format)")
    #expect(error.entity != nil, "\(format)")
  }

  @Test(
    "other compile errors",
    arguments: [
      ("age > $limit", "unboundVariable", "no value for variable $limit", 6),
      ("name MATCHES '(a'", "invalidPattern", "invalid regular expression \"(a\"", 0),
      ("age > 1 / 0", "invalidConstant", "integer division of 1 by zero", 6),
      ("age == {1, 2}[2]", "invalidConstant", "index 2 is out of range for an array of 2 elements", 7),
      (
        "CAST(name, 'NSColor') == 1", "unsupported",
        "CAST to \"NSColor\" is not supported (supported: NSArray, NSDate, NSNumber, NSSet, NSString, NSUUID)", 0
      ),
      ("name UTI-EQUALS 'public.text'", "unsupported", "UTI-EQUALS is only available on Apple platforms", 0),
      ("name BEGINSWITH 3", "typeMismatch", "BEGINSWITH needs a string, found integer 3", 0),
    ])
  func otherCompileErrors(format: String, code: String, message: String, offset: Int) throws {
    let error = try #require(compileError(format))
    #expect(error.code.description == code, "\(format)")
    #expect(error.message == message, "\(format)")
    #expect(error.location?.utf8Offset == offset, "\(format)")
  }

  @Test func evaluationErrorsSayWhatAndWhere() throws {
    let filter = try CompiledFilter("name == 'x' OR age < '40'", resolver: RecordKeyResolver())
    #expect(throws: PredicateEvaluationError.self) { try filter.evaluate(["age": 30]) }
    do {
      _ = try filter.evaluate(["age": 30])
    } catch {
      #expect(error.code == .typeMismatch)
      #expect(error.message == "cannot order integer 30 against string \"40\"")
      #expect(error.range == SyntaxRange(15, 25))
      #expect(error.description == "predicate:1:16: error: cannot order integer 30 against string \"40\"")
      #expect(
        error.detailedDescription() == """
          error: cannot order integer 30 against string "40"
           --> predicate:1:16
            |
          1 | name == 'x' OR age < '40'
            |                ^^^^^^^^^^
          """)
    }
    let index = try CompiledFilter("tags[3] == 'x'", resolver: RecordKeyResolver())
    #expect(
      throws: PredicateEvaluationError(
        .indexOutOfRange, "index 3 is out of range for an array of 1 elements", at: SyntaxRange(0, 7),
        source: "tags[3] == 'x'")
    ) { try index.evaluate(["tags": ["a"]]) }
  }

  /// Compile and evaluation errors handled alike, as `PredicateDiagnostic`s.
  @Test func compileAndEvaluationErrorsAreDiagnostics() throws {
    let compile = try #require(compileError("name == 'x' AND agee > 3"))
    let filter = try CompiledFilter("name == 'x' OR age < '40'", resolver: RecordKeyResolver())
    let evaluation = try #require(#expect(throws: PredicateEvaluationError.self) { try filter.evaluate(["age": 30]) })
    let diagnostics: [any PredicateDiagnostic] = [compile, evaluation]
    #expect(diagnostics.map(\.location?.description) == ["1:17", "1:16"])
    #expect(
      diagnostics.map(\.description) == [
        "predicate:1:17: error: Person has no key 'agee' (did you mean 'age'?)",
        "predicate:1:16: error: cannot order integer 30 against string \"40\"",
      ])
    #expect(
      diagnostics[1].detailedDescription().hasSuffix("1 | name == 'x' OR age < '40'\n  |                ^^^^^^^^^^"))
  }

  @Test func treesBuiltInCodeReportOffsetsWithoutSource() throws {
    let syntax = try PredicateParser.parse("a < 'b'")
    let filter = try CompiledFilter(syntax, resolver: RecordKeyResolver())
    do {
      _ = try filter.evaluate(["a": 1])
      Issue.record("expected an error")
    } catch {
      #expect(error.description == "error: cannot order integer 1 against string \"b\" (at offset 0)")
      #expect(error.detailedDescription() == error.description)
    }
  }

  @Test func constantPredicatesFold() throws {
    #expect(try CompiledFilter("1 < 2 AND 'a' IN {'a'}", resolver: RecordKeyResolver()).constantResult == true)
    #expect(try CompiledFilter("FALSEPREDICATE OR 2 ** 3 == 9", resolver: RecordKeyResolver()).constantResult == false)
    #expect(try CompiledFilter("a == 1", resolver: RecordKeyResolver()).constantResult == nil)
  }

  @Test func variablesAreSubstitutedBeforeCompiling() throws {
    let filter = try CompiledFilter(
      "age BETWEEN {$low, $high}", variables: ["low": 18, "high": 65], resolver: PersonResolver())
    #expect(filter.syntax.description == "age BETWEEN {18, 65}")
    #expect(try filter.evaluate(alice))
  }

  @Test func selfNeedsAResolverThatReadsIt() throws {
    let error = try #require(compileError("SELF == nil"))
    #expect(error.code == .unsupported)
    #expect(error.message == "SELF cannot be read from Person objects")
    #expect(try CompiledFilter("SELF == 3", resolver: RecordKeyResolver()).evaluate(3))
  }
}
