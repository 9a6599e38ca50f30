/// Albums the demo listeners play. Real records, so the demo reads like a real chart.
enum DemoCatalogue {
    struct Album {
        var artist: String
        var name: String
    }

    static let indie: [Album] = [
        Album(artist: "Radiohead", name: "In Rainbows"),
        Album(artist: "Radiohead", name: "OK Computer"),
        Album(artist: "Arcade Fire", name: "Funeral"),
        Album(artist: "The National", name: "Boxer"),
        Album(artist: "Bon Iver", name: "For Emma, Forever Ago"),
        Album(artist: "Fleet Foxes", name: "Fleet Foxes"),
        Album(artist: "Sufjan Stevens", name: "Carrie & Lowell"),
        Album(artist: "Vampire Weekend", name: "Modern Vampires of the City"),
        Album(artist: "Phoebe Bridgers", name: "Punisher"),
        Album(artist: "Big Thief", name: "Dragon New Warm Mountain I Believe in You"),
        Album(artist: "Beach House", name: "Bloom"),
        Album(artist: "Mitski", name: "Be the Cowboy"),
        Album(artist: "Alvvays", name: "Blue Rev"),
        Album(artist: "The Strokes", name: "Is This It"),
    ]

    static let electronic: [Album] = [
        Album(artist: "Daft Punk", name: "Discovery"),
        Album(artist: "Boards of Canada", name: "Music Has the Right to Children"),
        Album(artist: "Aphex Twin", name: "Selected Ambient Works 85-92"),
        Album(artist: "Burial", name: "Untrue"),
        Album(artist: "Caribou", name: "Our Love"),
        Album(artist: "Jamie xx", name: "In Colour"),
        Album(artist: "Four Tet", name: "There Is Love in You"),
        Album(artist: "Massive Attack", name: "Mezzanine"),
        Album(artist: "Bicep", name: "Isles"),
        Album(artist: "Fred again..", name: "Actual Life 3 (January 1 - September 9 2022)"),
        Album(artist: "Jon Hopkins", name: "Singularity"),
        Album(artist: "Röyksopp", name: "Melody A.M."),
    ]

    static let hipHopAndSoul: [Album] = [
        Album(artist: "Kendrick Lamar", name: "To Pimp a Butterfly"),
        Album(artist: "Frank Ocean", name: "Blonde"),
        Album(artist: "Lauryn Hill", name: "The Miseducation of Lauryn Hill"),
        Album(artist: "OutKast", name: "Stankonia"),
        Album(artist: "SZA", name: "Ctrl"),
        Album(artist: "Little Simz", name: "Sometimes I Might Be Introvert"),
        Album(artist: "D'Angelo", name: "Voodoo"),
        Album(artist: "Erykah Badu", name: "Baduizm"),
        Album(artist: "A Tribe Called Quest", name: "The Low End Theory"),
        Album(artist: "Anderson .Paak", name: "Malibu"),
        Album(artist: "Solange", name: "A Seat at the Table"),
    ]

    static let rockAndClassics: [Album] = [
        Album(artist: "Fleetwood Mac", name: "Rumours"),
        Album(artist: "David Bowie", name: "Hunky Dory"),
        Album(artist: "Talking Heads", name: "Remain in Light"),
        Album(artist: "Pink Floyd", name: "Wish You Were Here"),
        Album(artist: "Joni Mitchell", name: "Blue"),
        Album(artist: "The Beatles", name: "Abbey Road"),
        Album(artist: "Kate Bush", name: "Hounds of Love"),
        Album(artist: "Nirvana", name: "Nevermind"),
        Album(artist: "Queens of the Stone Age", name: "Songs for the Deaf"),
        Album(artist: "Led Zeppelin", name: "Led Zeppelin IV"),
        Album(artist: "Simon & Garfunkel", name: "Bridge Over Troubled Water"),
    ]

    static let jazz: [Album] = [
        Album(artist: "Miles Davis", name: "Kind of Blue"),
        Album(artist: "John Coltrane", name: "A Love Supreme"),
        Album(artist: "Bill Evans Trio", name: "Waltz for Debby"),
        Album(artist: "Kamasi Washington", name: "The Epic"),
        Album(artist: "Alice Coltrane", name: "Journey in Satchidananda"),
        Album(artist: "Nina Simone", name: "Pastel Blues"),
        Album(artist: "BADBADNOTGOOD", name: "IV"),
    ]

    static let all: [Album] = indie + electronic + hipHopAndSoul + rockAndClassics + jazz
}
