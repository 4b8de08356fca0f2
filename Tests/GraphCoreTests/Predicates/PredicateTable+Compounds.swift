import Foundation
import Testing
@testable import GraphCore

/// AND, OR, NOT, parentheses and precedence.
extension PredicateTable {
    static let compounds: [PredicateCase] = [
        row(#"plays > 15 AND title BEGINSWITH "Blue""#, ["Blue in Green"]),
        row(#"plays > 15 && title BEGINSWITH "Blue""#, ["Blue in Green"]),
        row(#"plays > 15 and title BEGINSWITH "Blue""#, ["Blue in Green"]),
        row(#"title BEGINSWITH "Blue" OR plays == 50"#, ["Blue in Green", "Blue Train", "So What"]),
        row(#"title BEGINSWITH "Blue" || plays == 50"#, ["Blue in Green", "Blue Train", "So What"]),
        row(#"NOT title BEGINSWITH "Blue""#, ["Moment's Notice", "Naïma", "So What"]),
        row(#"!(title BEGINSWITH "Blue")"#, ["Moment's Notice", "Naïma", "So What"]),
        row(#"! title BEGINSWITH "Blue""#, ["Moment's Notice", "Naïma", "So What"]),
        row("NOT NOT plays == 50", ["So What"]),
        row(#"plays == 5 OR plays == 10 AND title == "x""#, ["Naïma"]),
        row(#"(plays == 5 OR plays == 10) AND title == "Blue Train""#, ["Blue Train"]),
        row("plays == 50 OR plays == 30 AND rating == nil", ["So What", "Blue in Green"]),
        row("NOT plays == 50 AND plays > 20", ["Blue in Green"]),
        row("NOT (plays == 50 AND plays > 20)", ["Blue in Green", "Moment's Notice", "Blue Train", "Naïma"]),
        row("plays > 5 and plays < 50", ["Blue in Green", "Moment's Notice", "Blue Train"]),
        row("TRUEPREDICATE AND plays == 50", ["So What"]),
        row("FALSEPREDICATE OR plays == 50", ["So What"]),
        row("NOT TRUEPREDICATE", []),
        row("((((plays == 50))))", ["So What"]),
        row("rating < 4 OR rating == nil", ["Blue in Green", "Blue Train"]),
        row("NOT rating > 4", ["Blue in Green", "Moment's Notice", "Blue Train"]),
        row("plays > 5 AND plays < 50 AND rating != nil", ["Moment's Notice", "Blue Train"]),
        row("plays == 5 OR plays == 10 OR plays == 20", ["Naïma", "Blue Train", "Moment's Notice"]),
        row("(plays == 5 OR plays == 10) AND (rating > 4 OR rating < 4)", ["Naïma", "Blue Train"]),
        row("NOT (plays == 5 OR plays == 10) AND NOT rating == nil", ["So What", "Moment's Notice"]),
        row(#"plays>15&&title BEGINSWITH"Blue""#, ["Blue in Green"]),
        row("\tplays\n>\r\n15 ", ["So What", "Blue in Green", "Moment's Notice"]),
    ]
}
