import Testing

@testable import LiveQueryCore
@testable import LiveQueryService

/// What a resuming client is sent again, from the frames a session wrote.
@Suite struct ReplayLogTests {
  static func frame(_ subscription: String, _ position: Int, _ text: String) -> LiveOutbox.Frame {
    LiveOutbox.Frame(text: text, save: position, subscription: subscription, position: position, bytes: text.utf8.count)
  }

  @Test func framesAfterTheClientsPositionAreSentAgainInOrder() {
    let log = ReplayLog(limit: 1 << 20)
    log.record([Self.frame("a", 40, "a40"), Self.frame("b", 41, "b41"), Self.frame("a", 42, "a42")])
    let plan = log.plan(positions: ["a": 40, "b": 41], live: ["a", "b"])
    #expect(plan.resend == ["a42"])
    #expect(plan.resynchronize.isEmpty)
  }

  @Test func aPositionTwoFramesShareGetsASnapshot() {
    // An update's answer carries the seq of the list it replaces: a client
    // at 42 may have seen the changes or the answer.
    let log = ReplayLog(limit: 1 << 20)
    log.record([Self.frame("b", 40, "changes 40"), Self.frame("b", 42, "changes 42"), Self.frame("b", 42, "answer 42")])
    let atTie = log.plan(positions: ["b": 42], live: ["b"])
    #expect(atTie.resend.isEmpty)
    #expect(atTie.resynchronize == ["b": 42])
    let before = log.plan(positions: ["b": 40], live: ["b"])
    #expect(before.resend == ["changes 42", "answer 42"])
    #expect(before.resynchronize.isEmpty)
  }

  @Test func aPositionSharedWithATrimmedFrameGetsASnapshot() {
    let log = ReplayLog(limit: 10)
    log.record([Self.frame("b", 42, "changes 42"), Self.frame("b", 42, "answer 42")])
    let plan = log.plan(positions: ["b": 42], live: ["b"])
    #expect(plan.resynchronize == ["b": 42])
  }

  @Test func aPositionTwoTrimmedFramesSharedGetsASnapshot() {
    let log = ReplayLog(limit: 10)
    log.record([
      Self.frame("b", 42, "changes 42"), Self.frame("b", 42, "answer  42"), Self.frame("b", 43, "changes 43"),
    ])
    let plan = log.plan(positions: ["b": 42], live: ["b"])
    #expect(plan.resynchronize == ["b": 42])
  }

  @Test func anEventsDroppedNoteIsSentAgainWithTheEventsAfterIt() {
    let log = ReplayLog(limit: 1 << 20)
    let note = #"{"op":"error","id":"w","code":"eventsDropped"}"#
    log.record([
      Self.frame("w", 40, "event 40"),
      LiveOutbox.Frame(text: note, save: nil, subscription: "w", position: 50, bytes: note.utf8.count),
      Self.frame("w", 51, "event 51"),
    ])
    let plan = log.plan(positions: ["w": 40], live: ["w"])
    #expect(plan.resend == [note, "event 51"])
  }

  @Test func subscriptionsChurnedWithoutEndKeepTheLogBounded() {
    let log = ReplayLog(limit: 100)
    // Each frame fills the log alone, so the one before it is trimmed.
    let padding = String(repeating: "x", count: 90)
    for index in 0..<(ReplayLog.trimmedLimit * 3) {
      log.record([Self.frame("s\(index)", index, padding)])
    }
    #expect(log.trimmedCount <= ReplayLog.trimmedLimit)
    // A subscription whose trimmed position was folded away still gets a
    // snapshot when its client saw less; a later one is still resent.
    let last = ReplayLog.trimmedLimit * 3 - 1
    let plan = log.plan(positions: ["s0": -1, "s\(last)": last - 1], live: ["s0", "s\(last)"])
    #expect(plan.resynchronize == ["s0": -1])
    #expect(plan.resend == [padding])
  }
}
