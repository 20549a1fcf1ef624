import PredicateDSL
import Testing

@Suite("Format arguments and variables")
struct ArgumentTests {
  func canonical(_ text: String, _ arguments: [FilterValue]) throws -> String {
    try PredicateParser.parse(text, arguments: arguments).description
  }

  @Test func objectArgumentsAreConstants() throws {
    #expect(try canonical("name == %@", ["Ann"]) == #"name == "Ann""#)
    #expect(try canonical("%@ LIKE %@", ["firstName", "Adam"]) == #""firstName" LIKE "Adam""#)
    #expect(try canonical("a IN %@", [[1, 2]]) == "a IN {1, 2}")
    #expect(try canonical("a == %@", [.null]) == "a == nil")
    #expect(try canonical("a == %@", [true]) == "a == TRUE")
    #expect(try canonical("a > %@", [.date(secondsSinceReferenceDate: 1.5)]) == #"a > CAST(1.5, "NSDate")"#)
    #expect(try canonical("a IN %@", [.set([3])]) == #"a IN CAST({3}, "NSSet")"#)
  }

  @Test func keyPathArguments() throws {
    #expect(try canonical("%K == 1", ["name"]) == "name == 1")
    #expect(try canonical("%K == 1", ["address.city"]) == "address.city == 1")
    #expect(try canonical("%K == 1", ["size"]) == "#size == 1")
    #expect(try canonical("%K > 1", ["items.@count"]) == "items.@count > 1")
    #expect(try canonical("%K == %@", ["name", "x"]) == #"name == "x""#)
  }

  @Test func printfArguments() throws {
    #expect(try canonical("a == %d", [42]) == "a == 42")
    #expect(try canonical("a == %i", [-1]) == "a == -1")
    #expect(try canonical("a == %ld", [7]) == "a == 7")
    #expect(try canonical("a == %lld", [7]) == "a == 7")
    #expect(try canonical("a == %u", [7]) == "a == 7")
    #expect(try canonical("a == %lu", [7]) == "a == 7")
    #expect(try canonical("a == %x", [255]) == "a == 255")
    #expect(try canonical("a == %d", [true]) == "a == 1")
    #expect(try canonical("a == %f", [1.5]) == "a == 1.5")
    #expect(try canonical("a == %lf", [2]) == "a == 2.0")
    #expect(try canonical("a == %e", [1e10]) == "a == 10000000000.0")
    #expect(try canonical("a == %g", [0.25]) == "a == 0.25")
    #expect(try canonical("a == %s", ["text"]) == #"a == "text""#)
    #expect(try canonical("a == %5.2f", [1.0]) == "a == 1.0")
  }

  @Test func argumentsAreConsumedLeftToRight() throws {
    #expect(
      try canonical("%K == %@ AND %K > %d", ["name", "x", "age", 3]) == #"name == "x" AND age > 3"#)
  }

  @Test func quotedSpecifiersAreText() throws {
    #expect(try canonical("name == '%@'", []) == #"name == "%@""#)
    #expect(try canonical("name == \"%K\" AND a == %@", [1]) == #"name == "%K" AND a == 1"#)
  }

  @Test func variablesStayUntilSubstituted() throws {
    let template = try PredicateParser.parse("age BETWEEN {$low, $high} AND name == $name")
    #expect(template.variables == ["low", "high", "name"])
    let bound = template.substituting(["low": 18, "high": 65, "name": "Ann"])
    #expect(bound.description == #"age BETWEEN {18, 65} AND name == "Ann""#)
    #expect(bound.variables.isEmpty)
    // The aggregate became a constant array, exactly as parsing the text gives.
    #expect(bound == (try PredicateParser.parse(bound.description)))
  }

  @Test func partialSubstitutionKeepsUnboundVariables() throws {
    let template = try PredicateParser.parse("a == $x AND b == $y")
    let bound = template.substituting(["x": 1])
    #expect(bound.description == "a == 1 AND b == $y")
    #expect(bound.variables == ["y"])
  }

  @Test func subqueryVariablesAreNotSubstituted() throws {
    let template = try PredicateParser.parse("SUBQUERY(items, $x, $x.price > $x_min).@count > $n")
    #expect(template.variables == ["x_min", "n"])
    let bound = template.substituting(["x": 99, "x_min": 5, "n": 0])
    #expect(bound.description == "SUBQUERY(items, $x, $x.price > 5).@count > 0")
  }

  @Test func substitutionFoldsCasts() throws {
    let bound = try PredicateParser.parse("a > CAST($t, 'NSDate')").substituting(["t": 10])
    #expect(bound.description == #"a > CAST(10.0, "NSDate")"#)
    #expect(bound == (try PredicateParser.parse(bound.description)))
  }
}
