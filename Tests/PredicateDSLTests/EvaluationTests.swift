import PredicateDSL
import Testing

/// The object most cases evaluate: a JSON-like record.
private let person: FilterValue = [
  "name": "Alice", "age": 31, "score": 7.5, "flag": true, "off": false, "nothing": nil,
  "tags": ["swift", "linux", "Café"], "numbers": [3, 1, 2], "empty": [],
  "set": .set([1, 2, 3]), "created": .date(secondsSinceReferenceDate: 100),
  "address": ["city": "Oslo", "zip": "0150"],
  "items": [["price": 10, "qty": 2], ["price": 5, "qty": 1], ["price": 20]],
  "nested": [[1, 2], [3]],
  "accents": "café", "decomposed": "cafe\u{301}", "greek": "ΩΜΈΓΑ", "street": "Straße",
  "path": "a.b(c)[d]*", "big": .int(Int64.max),
  "twoTo53": .double(9_007_199_254_740_992), "twoTo53PlusOne": .int(9_007_199_254_740_993), "nan": .double(.nan),
  "sentence": "the quick brown fox jumps over the lazy dog",
]

@Suite("Evaluation semantics")
struct EvaluationTests {
  /// `format`, then the expected result: `true`, `false`, or `error:<code>`.
  static let cases: [(String, String)] = [
    // Numbers: by value across integers, doubles and Booleans.
    ("age == 31", "true"), ("age == 31.0", "true"), ("age = 31", "true"), ("age != 31", "false"),
    ("age <> 30", "true"), ("age > 30", "true"), ("age >= 31", "true"), ("age =< 31", "true"),
    ("age < 31.5", "true"), ("score > 7", "true"), ("score == 7.5", "true"),
    ("flag == 1", "true"), ("flag == YES", "true"), ("off == 0", "true"), ("flag > off", "true"),
    ("flag == TRUE", "true"), ("off >= 0", "true"), ("score > 7.25", "true"), ("age > 30.5", "true"),
    ("score <= 7.5", "true"), ("score != 7.5", "false"), ("flag != NO", "true"), ("off == NO", "true"),
    ("flag == 1.0", "true"), ("nothing == NO", "false"), ("age == YES", "false"), ("age IN {'31', 'x'}", "false"),
    ("missing IN {'a'}", "false"), ("address.city IN {'Bergen', 'Oslo'}", "true"),
    ("score > 'x'", "error:typeMismatch"),
    ("big > 9223372036854775806", "true"), ("big == 9223372036854775807", "true"),
    ("big == 9223372036854775807.0", "false"), ("big < 9223372036854775807.0", "true"),
    // No coercion between strings and numbers.
    ("age == '31'", "false"), ("age != '31'", "true"), ("'42' <> 42", "true"),
    ("age < '40'", "error:typeMismatch"), ("name > 3", "error:typeMismatch"),
    // nil.
    ("missing == nil", "true"), ("nothing == nil", "true"), ("missing != nil", "false"),
    ("name != nil", "true"), ("missing > 3", "false"), ("missing < 3", "false"),
    ("missing BEGINSWITH 'a'", "false"), ("missing LIKE '*'", "false"), ("missing IN {1}", "false"),
    ("nil == nil", "true"), ("missing.deeper == nil", "true"), ("missing CONTAINS 'a'", "false"),
    ("missing BETWEEN {1, 2}", "false"), ("name > nil", "false"),
    // Strings: literal code units, scalar order.
    ("name == 'Alice'", "true"), ("name == \"Alice\"", "true"), ("name == 'alice'", "false"),
    ("'B' < 'a'", "true"), ("'10' < '9'", "true"), ("name < 'Bob'", "true"),
    ("accents == decomposed", "false"), ("accents ==[d] decomposed", "true"),
    ("accents ==[c] decomposed", "true"), ("accents ==[n] decomposed", "false"),
    // Options.
    ("name ==[c] 'ALICE'", "true"), ("name ==[cd] 'ålice'", "true"), ("name ==[d] 'Ålice'", "true"),
    ("name ==[d] 'alice'", "false"), ("greek ==[c] 'Ωμέγα'", "true"), ("street ==[c] 'STRASSE'", "true"),
    ("accents BEGINSWITH[c] 'CAFE'", "false"), ("accents BEGINSWITH[cd] 'CAFE'", "true"),
    ("name <[c] 'bob'", "true"), ("name >[c] 'ALICE'", "false"), ("name !=[c] 'alice'", "false"),
    // BEGINSWITH, ENDSWITH, CONTAINS; an empty needle is false.
    ("name BEGINSWITH 'Al'", "true"), ("name ENDSWITH 'ice'", "true"), ("name CONTAINS 'lic'", "true"),
    ("name BEGINSWITH ''", "false"), ("name CONTAINS ''", "false"), ("name ENDSWITH ''", "false"),
    ("name BEGINSWITH 'al'", "false"), ("name BEGINSWITH[c] 'al'", "true"),
    ("name CONTAINS[c] 'LIC'", "true"), ("name ENDSWITH[c] 'ICE'", "true"),
    ("age BEGINSWITH '3'", "error:typeMismatch"), ("name BEGINSWITH 3", "error:typeMismatch"),
    // CONTAINS and IN on collections.
    ("tags CONTAINS 'swift'", "true"), ("tags CONTAINS 'Swift'", "false"),
    ("tags CONTAINS[c] 'SWIFT'", "true"), ("tags CONTAINS[cd] 'cafe'", "true"),
    ("numbers CONTAINS 2", "true"), ("numbers CONTAINS 2.0", "true"), ("set CONTAINS 3", "true"),
    ("'swift' IN tags", "true"), ("2 IN numbers", "true"), ("age IN {30, 31}", "true"),
    ("age IN {30.0, 31.0}", "true"), ("name IN {'Bob', 'Alice'}", "true"),
    ("name IN[c] {'bob', 'alice'}", "true"), ("name IN {'bob', 'alice'}", "false"),
    ("'lic' IN name", "true"), ("name IN 'xxAlicexx'", "true"), ("name IN 'alice'", "false"),
    ("age IN 31", "error:typeMismatch"), ("address CONTAINS 'Oslo'", "true"),
    ("age CONTAINS 3", "error:notACollection"),
    // LIKE: * and ? only, anchored, everything else literal.
    ("name LIKE 'A*'", "true"), ("name LIKE 'a*'", "false"), ("name LIKE[c] 'a*'", "true"),
    ("name LIKE '?lice'", "true"), ("name LIKE '??ice'", "true"), ("name LIKE '?ice'", "false"),
    ("name LIKE '*li*'", "true"), ("name LIKE 'Alic'", "false"), ("name LIKE 'Alice'", "true"),
    ("name LIKE '*'", "true"), ("name LIKE 'A*c?'", "true"), ("name LIKE 'A*x*'", "false"),
    ("path LIKE 'a.b(c)[d]*'", "true"), ("path LIKE 'a?b(c)[d]\\\\*'", "true"),
    ("path LIKE 'a.b(c)[d]\\\\?'", "false"), ("accents LIKE 'caf?'", "true"),
    ("accents LIKE[d] 'cafe'", "true"), ("decomposed LIKE[cd] 'CAF?'", "true"),
    ("age LIKE '3*'", "error:typeMismatch"),
    // MATCHES: a whole-string ICU regular expression.
    ("name MATCHES 'A.*'", "true"), ("name MATCHES 'l'", "false"), ("name MATCHES '.*l.*'", "true"),
    ("name MATCHES[c] 'alice'", "true"), ("name MATCHES 'a|Alice'", "true"),
    ("address.zip MATCHES '\\\\d+'", "true"), ("address.zip MATCHES '\\\\d{3}'", "false"),
    ("name MATCHES '('", "error:invalidPattern"),
    // BETWEEN: inclusive, bounds not reordered.
    ("age BETWEEN {31, 40}", "true"), ("age BETWEEN {20, 31}", "true"), ("age BETWEEN {40, 20}", "false"),
    ("score BETWEEN {7, 8}", "true"), ("name BETWEEN {'A', 'B'}", "true"),
    ("created BETWEEN {CAST(0, 'NSDate'), CAST(200, 'NSDate')}", "true"),
    ("age BETWEEN CAST({1, 2, 3}, 'NSArray')", "error:invalidConstant"),
    // Quantifiers: ALL and NONE are true on an empty collection.
    ("ANY tags == 'linux'", "true"), ("SOME tags == 'linux'", "true"), ("ALL tags == 'linux'", "false"),
    ("NONE tags == 'rust'", "true"), ("ANY numbers > 2", "true"), ("ALL numbers > 0", "true"),
    ("ANY empty == 1", "false"), ("ALL empty == 1", "true"), ("NONE empty == 1", "true"),
    ("ANY missing == 1", "false"), ("ALL missing == 1", "true"), ("ANY age == 1", "error:notACollection"),
    ("ANY items.price > 15", "true"), ("ALL items.price > 1", "true"), ("ANY nested == 3", "false"),
    ("ANY nested == {3}", "true"), ("ANY tags BEGINSWITH[c] 'S'", "true"), ("ANY set == 2", "true"),
    ("ANY tags IN {'rust', 'linux'}", "true"), ("NOT ANY tags == 'linux'", "false"),
    // Key paths, collection operators, index access.
    ("address.city == 'Oslo'", "true"), ("SELF.address.city == 'Oslo'", "true"),
    ("tags.@count == 3", "true"), ("empty.@count == 0", "true"), ("items.@sum.price == 35", "true"),
    ("items.@avg.price > 11.6", "true"), ("items.@min.price == 5", "true"), ("items.@max.price == 20", "true"),
    ("numbers.@sum == 6", "true"), ("items.qty == {2, 1, nil}", "true"), ("missing.@count == nil", "true"),
    ("numbers[0] == 3", "true"), ("numbers[FIRST] == 3", "true"), ("numbers[LAST] == 2", "true"),
    ("numbers[SIZE] == 3", "true"), ("empty[FIRST] == nil", "true"), ("numbers[3] == 1", "error:indexOutOfRange"),
    ("address['city'] == 'Oslo'", "true"), ("items[1].price == 5", "true"), ("tags.@count + 1 == 4", "true"),
    ("age.@count == 1", "error:notACollection"), ("items.@distinctUnionOfObjects.qty[SIZE] == 2", "true"),
    ("items.@unionOfObjects.qty == {2, 1}", "true"),
    // Arithmetic: integer division, promotion, precedence.
    ("age + 1 == 32", "true"), ("(1 + 2) * 3 == 9", "true"), ("7 / 2 == 3", "true"), ("7.0 / 2 == 3.5", "true"),
    ("(41 / 2) * 2 <> 41", "true"), ("2 ** 10 == 1024", "true"), ("-age == -31", "true"),
    ("age * score == 232.5", "true"), ("age / 0 == 1", "error:divisionByZero"), ("name + 1 == 1", "error:typeMismatch"),
    ("9223372036854775807 + 1 > 9223372036854775807", "true"), ("5 & 3 == 1", "true"), ("1 << 4 == 16", "true"),
    ("missing + 1 == nil", "true"),
    // Functions.
    ("sum:(numbers) == 6", "true"), ("average:(numbers) == 2", "true"), ("count:(tags) == 3", "true"),
    ("max:(numbers) == 3", "true"), ("min:(numbers) == 1", "true"), ("median:(numbers) == 2", "true"),
    ("sqrt:(16) == 4", "true"), ("abs:(-3) == 3", "true"), ("floor:(score) == 7", "true"),
    ("ceiling:(score) == 8", "true"),
    ("uppercase:(name) == 'ALICE'", "true"), ("lowercase:(name) == 'alice'", "true"), ("length:(name) == 5", "true"),
    ("modulus:by:(age, 2) == 1", "true"), ("now() > CAST(0, 'NSDate')", "true"), ("random() < 1", "true"),
    ("mode:({1, 2, 2}) == {2}", "true"), ("stddev:({2, 4, 4, 4, 5, 5, 7, 9}) == 2", "true"),
    ("sum:(name) == 1", "error:notACollection"), ("distinct:({1, 1, 2}) == {1, 2}", "true"),
    // CAST.
    ("CAST(age, 'NSString') == '31'", "true"), ("CAST('42', 'NSNumber') == 42", "true"),
    ("CAST(address.zip, 'NSNumber') == 150", "true"), ("CAST(name, 'NSNumber') == 1", "error:invalidCast"),
    ("created == CAST(100, 'NSDate')", "true"), ("created > CAST(99.5, 'NSDate')", "true"),
    ("created + 10 == CAST(110, 'NSDate')", "true"), ("created > 50", "error:typeMismatch"),
    // SUBQUERY and TERNARY.
    ("SUBQUERY(items, $i, $i.price > 8).@count == 2", "true"),
    ("SUBQUERY(items, $i, price > 8 AND qty > 1).@count == 1", "true"),
    ("SUBQUERY(items, $i, ANY {1, 2} == $i.qty)[SIZE] == 2", "true"),
    ("SUBQUERY(age, $i, $i > 1).@count == 1", "error:notACollection"),
    ("TERNARY(age > 30, 'old', 'young') == 'old'", "true"),
    // Compounds.
    ("age > 30 AND name == 'Alice'", "true"), ("age > 40 OR name == 'Alice'", "true"),
    ("NOT age > 40", "true"), ("age > 40 AND name < 3", "false"), ("age > 20 OR name < 3", "true"),
    ("TRUEPREDICATE", "true"), ("FALSEPREDICATE", "false"), ("age > 40 AND FALSEPREDICATE", "false"),
    ("name < 3 AND FALSEPREDICATE", "error:typeMismatch"), ("NOT (age > 30 AND age < 40)", "false"),
    // Where the fused shortcuts stop: integers beyond 2^53 against doubles,
    // NaN, and needles longer than the 16 bytes compared byte by byte.
    ("twoTo53 == 9007199254740993", "false"), ("twoTo53 < 9007199254740993", "true"),
    ("twoTo53 == 9007199254740992", "true"), ("twoTo53PlusOne > 9007199254740992.0", "true"),
    ("twoTo53PlusOne == 9007199254740993", "true"), ("twoTo53PlusOne != 9007199254740992", "true"),
    ("nan == 1", "false"), ("nan != 1", "true"), ("nan > 1", "false"), ("nan <= 1", "false"),
    ("nan BETWEEN {0, 1}", "false"),
    ("sentence BEGINSWITH 'the quick brown fox jumps'", "true"), ("sentence ENDSWITH 'over the lazy dog'", "true"),
    ("sentence CONTAINS 'brown fox jumps over the'", "true"), ("sentence CONTAINS 'brown fox jumps over a'", "false"),
    ("sentence BEGINSWITH[c] 'THE QUICK BROWN FOX JUMPS'", "true"),
    ("sentence == 'the quick brown fox jumps over the lazy dog'", "true"),
    ("name BEGINSWITH 'Alice in Wonderland, the book'", "false"),
    ("sentence IN {'the quick brown fox jumps over the lazy dog', 'x'}", "true"),
  ]

  @Test("evaluates with Apple's semantics", arguments: cases)
  func evaluates(format: String, expected: String) throws {
    #expect(outcome(format) == expected, "\(format)")
  }

  /// The outcome with closure reads and with `KeyReader`s, which must agree.
  func outcome(_ format: String) -> String {
    let closures = outcome(format, resolver: RecordKeyResolver())
    let readers = outcome(format, resolver: RecordReaderResolver())
    return closures == readers ? closures : "closure reads \(closures), KeyReaders \(readers)"
  }

  func outcome<Resolver: KeyResolver<FilterValue>>(_ format: String, resolver: Resolver) -> String {
    do {
      let filter = try CompiledFilter(format, resolver: resolver)
      return String(try filter.evaluate(person))
    } catch let error as PredicateEvaluationError {
      return "error:\(error.code)"
    } catch let error as PredicateCompileError {
      return "error:\(error.code)"
    } catch {
      return "unexpected \(error)"
    }
  }
}

@Suite("Set equality")
struct SetEqualityTests {
  /// Sets compare as sets of predicate-equal values, the same both ways.
  @Test func setsCompareSymmetrically() {
    let ones: FilterValue = .set([1, 1.0])
    let oneTwo: FilterValue = .set([1, 2])
    #expect(!FilterValue.predicateEqual(ones, oneTwo))
    #expect(!FilterValue.predicateEqual(oneTwo, ones))
    #expect(FilterValue.predicateEqual(ones, .set([1])))
    #expect(FilterValue.predicateEqual(.set([1]), ones))
  }
}
