public import ObjectGraph
public import PredicateDSL

/// What a ``ListMonitor`` lists: the objects of an entity (sub-entities
/// included) that match a predicate, in the order of its sort keys, grouped
/// in sections, a window of them when it has an offset or a limit.
/// NSFetchedResultsController's fetch request
/// and section key path, and CoreStore's `From`, `Where`, `OrderBy` and
/// `SectionBy`, in one value.
///
/// ```swift
/// let request = try ListRequest(
///   "Person", where: "age >= %d", arguments: [18],
///   sortedBy: [.ascending("department.name"), .descending("age")],
///   sectionedBy: "department.name")
/// ```
///
/// Objects that tie on every sort key are ordered by identifier, so the
/// order is total. A sort or section key is an attribute of the entity or a
/// key path through to-one relationships ending at an attribute
/// (`department.name`). Sections appear in the order of their first object,
/// so the first sort key must be the section key.
public struct ListRequest: Sendable {
  /// The entity listed, with its sub-entities.
  public var entity: String
  /// The predicate objects must match, arguments substituted; nil lists
  /// every object of the entity.
  public var predicate: PredicateSyntax?
  /// The text the predicate was parsed from, for error positions.
  public var predicateSource: String?
  /// The order: at least one key, and at most
  /// ``maximumSortKeyCount`` distinct keys. A key repeated after its first
  /// occurrence adds nothing to the order and is dropped, whatever its
  /// direction: the list reads each key once.
  public var sortKeys: [ObjectFetchRequest.SortKey]
  /// The key whose value groups objects into sections; nil for one
  /// section holding every object.
  public var sectionKey: String?
  /// Turns a section's value into its display name; by default the value
  /// as text: strings as they are, numbers in decimal, Booleans `true` or
  /// `false`, dates in ISO 8601 in UTC (`2024-01-01` at midnight, else
  /// `2024-01-01T09:30:00Z`), nil as nil.
  public var sectionName: (@Sendable (FilterValue) -> String?)?
  /// Turns a section's name into its entry in the section index (a table
  /// view's index down its side); nil leaves the section out of the index.
  /// By default the name's first letter, capitalised, as
  /// NSFetchedResultsController's `sectionIndexTitle(forSectionName:)`;
  /// a section without a name has no entry.
  public var sectionIndexTitle: (@Sendable (String) -> String?)?
  /// The most objects listed; nil for no limit.
  public var limit: Int?
  /// How many of the sorted, matching objects are skipped before the first
  /// one listed, as NSFetchRequest's `fetchOffset`: the list shows the
  /// objects ranked `offset..<offset + limit` (every one from `offset` on
  /// without a limit). The window stays where it is as saves change the
  /// list: an object deleted before it lets the next one in at its end,
  /// one inserted before it pushes the last one out. 0 by default.
  ///
  /// Sections are those of the objects in the window, numbered from 0 at
  /// the first of them, as an NSFetchedResultsController with a fetch
  /// offset numbers them. A negative offset is refused with a
  /// ``WatchError`` whose code is ``WatchError/Code/invalidOptions``:
  ///
  /// ```
  /// watch 'page' on Person: a list's offset cannot be negative (-1)
  /// ```
  public var offset: Int
  /// A name for messages; by default the entity and the predicate.
  public var label: String?

  /// The most distinct sort keys a list may have: 64. A monitor of a
  /// request with more is refused with a ``WatchError`` whose code is
  /// ``WatchError/Code/invalidOptions``; repeated keys count once.
  ///
  /// Each sort key costs every listed object a stored value, and every
  /// comparison of two tied objects a comparison of that value, so the
  /// limit bounds both.
  ///
  /// ```
  /// watch 'ranked' on Person: the list has 65 distinct sort keys, more than the limit of 64; a repeated key counts once, and 'k64' is the first past the limit
  /// ```
  public static let maximumSortKeyCount = 64

  /// Creates a request with a predicate parsed from format text.
  ///
  /// - Throws: ``WatchError`` when the text is not a predicate, with its
  ///   position. The rest is checked when a monitor is created.
  public init(
    _ entity: String, where format: String, arguments: [FilterValue] = [],
    sortedBy sortKeys: [ObjectFetchRequest.SortKey], sectionedBy sectionKey: String? = nil,
    sectionName: (@Sendable (FilterValue) -> String?)? = nil, limit: Int? = nil, offset: Int = 0,
    label: String? = nil
  ) throws(WatchError) {
    let predicate: PredicateSyntax
    do {
      predicate = try PredicateParser.parse(format, arguments: arguments)
    } catch {
      throw WatchError(watch: label ?? "\(entity) \(format)", entity: entity, parse: error)
    }
    self.init(
      entity, predicate: predicate, source: format, sortedBy: sortKeys, sectionedBy: sectionKey,
      sectionName: sectionName, limit: limit, offset: offset, label: label)
  }

  /// Creates a request with a parsed predicate, or none.
  public init(
    _ entity: String, predicate: PredicateSyntax? = nil, source: String? = nil,
    sortedBy sortKeys: [ObjectFetchRequest.SortKey], sectionedBy sectionKey: String? = nil,
    sectionName: (@Sendable (FilterValue) -> String?)? = nil, limit: Int? = nil, offset: Int = 0,
    label: String? = nil
  ) {
    self.entity = entity
    self.predicate = predicate
    predicateSource = source
    self.sortKeys = sortKeys
    self.sectionKey = sectionKey
    self.sectionName = sectionName
    self.limit = limit
    self.offset = offset
    self.label = label
  }

  /// The label messages use.
  var displayLabel: String {
    label ?? "\(entity) \(predicateSource ?? predicate?.description ?? "TRUEPREDICATE")"
  }
}
