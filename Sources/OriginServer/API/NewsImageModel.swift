import ImagePipeline

/// Where NewsAPI articles' images come from: outlets in the shares, URL shapes
/// and picture sizes of the real NewsAPI responses (206 distinct
/// image URLs; `datasets/fidelity-targets.json` holds the figures).
///
/// Most outlets name each picture uniquely; the collisions a cache key made from
/// part of the URL meets come from a few shapes: NPR's identity in `?url=` (its
/// paths end in `/`), ESPN's `/combiner/i?img=`, AP's `?url=`, and one NPR default
/// image reused by many articles.
struct NewsImageModel: Sendable {
    /// Share of images from Korean outlets that name every picture `840_560.jpeg`
    /// in its own folder, as seed 000 describes. The real responses show none, so
    /// it is 0 unless a run asks for that world (`record --shared-file-names`).
    var sharedFileNameShare: Double = 0

    struct Picture {
        var url: String
        var source: String
        var width: Int
        var height: Int
        var format: ImageFormat
    }

    /// An article's image, drawn from `random`.
    func picture(_ random: inout CatalogRandom) -> Picture {
        if random.chance(sharedFileNameShare) {
            let outlet = ["yna", "hani", "chosun", "joongang", "donga", "khan"][random.below(6)]
            return Picture(url: "https://img.\(outlet).co.kr/photo/\(random.hex(8))/840_560.jpeg", source: outlet, width: 840, height: 560, format: .jpeg)
        }
        return random.pick(Self.outlets, share: \.share).picture(&random)
    }

    private struct Outlet: Sendable {
        /// Share of distinct image URLs.
        var share: Double
        var picture: @Sendable (inout CatalogRandom) -> Picture
    }

    private static func jpegOrPNG(_ pngShare: Double, _ random: inout CatalogRandom) -> (String, ImageFormat) {
        random.chance(pngShare) ? ("png", .png) : ("jpg", .jpeg)
    }

    private static let words = [
        "election", "storm", "market", "olympics", "court", "summit", "budget", "vaccine", "wildfire", "strike",
        "launch", "festival", "trial", "protest", "merger", "drought", "rescue", "museum", "stadium", "bridge",
    ]

    private static func slug(_ random: inout CatalogRandom, words count: Int = 3) -> String {
        (0..<count).map { _ in words[random.below(words.count)] }.joined(separator: "-")
    }

    private static func picture(_ url: String, _ source: String, _ size: (Int, Int), _ format: ImageFormat = .jpeg) -> Picture {
        Picture(url: url, source: source, width: size.0, height: size.1, format: format)
    }

    /// The outlets and their shares of distinct URLs; the last is the long tail of outlets seen once or twice.
    private static let outlets: [Outlet] = [
        Outlet(share: 0.31) { random in
            let (ext, format) = jpegOrPNG(0.12, &random)
            switch random.below(4) {
            case 0: return picture("https://ichef.bbci.co.uk/ace/standard/1024/cpsprodpb/\(random.hex(4))/live/\(random.hex(8))-\(random.hex(4))-11ef-\(random.hex(4))-\(random.hex(12)).\(ext)", "BBC News", (1024, 576), format)
            case 1: return picture("https://ichef.bbci.co.uk/news/1024/branded_sport/\(random.hex(4))/live/\(random.hex(8))-\(random.hex(4))-11ef-\(random.hex(4))-\(random.hex(12)).\(ext)", "BBC Sport", (1024, 576), format)
            default: return picture("https://ichef.bbci.co.uk/news/1024/branded_news/\(random.hex(4).uppercased())/production/_\(107_000_000 + random.below(30_000))_\(slug(&random, words: 1)).\(ext)", "BBC News", (1024, 576), format)
            }
        },
        Outlet(share: 0.095) { random in
            if random.chance(0.25) {  // one default image for many articles: one distinct URL, so NPR's share of distinct URLs is about 0.07
                return picture("https://media.npr.org/include/images/facebook-default-wide-s1400-c100.jpg", "NPR", (1400, 788))
            }
            // A few standard crops: articles cropped alike share the path, the picture is in ?url=.
            let crop = random.chance(0.25) ? "3000x1688+0+0" : "\([3000, 4500, 5000, 7072][random.below(4)])x\(1688 + random.below(2000))+0+\(random.below(400))"
            let inner = "http%3A%2F%2Fnpr-brightspot.s3.amazonaws.com%2F\(random.hex(2))%2F\(random.hex(2))%2F\(random.hex(24))%2F\(slug(&random, words: 2)).jpg"
            return picture("https://npr.brightspotcdn.com/dims3/default/strip/false/crop/\(crop)/resize/1400/quality/100/format/jpeg/?url=\(inner)", "NPR", (1400, 788))
        },
        Outlet(share: 0.068) { random in
            let section = ["International", "Politics", "US", "Sports", "Health", "Entertainment"][random.below(6)]
            return picture("https://s.abcnews.com/images/\(section)/WireAP_\(random.hex(32))_16x9_992.jpg", "ABC News", (992, 558))
        },
        Outlet(share: 0.063) { random in
            picture("https://cdn.cnn.com/cnnnext/dam/assets/\(190_500_000_000 + random.below(99_999_999))-\(slug(&random))-super-tease.jpg", "CNN", (1100, 619))
        },
        Outlet(share: 0.053) { random in
            picture("https://gizmodo.com/app/uploads/2024/0\(7 + random.below(2))/\(slug(&random).capitalized).jpg", "Gizmodo.com", (1200, 675))
        },
        Outlet(share: 0.049) { random in
            picture("https://img.lemde.fr/2024/07/\(10 + random.below(20))/0/0/\(4000 + random.below(2700))/\(2600 + random.below(1800))/1440/960/60/0/\(random.hex(7))_\(5_000_000 + random.below(400_000))-01-06.jpg", "Le Monde", (1440, 960))
        },
        Outlet(share: 0.044) { random in
            let name = "\(10 + random.below(20))\(slug(&random, words: 2))"
            let (ext, format) = jpegOrPNG(0.1, &random)
            return picture("https://static01.nyt.com/images/2019/05/\(10 + random.below(20))/world/\(name)/\(name)-facebookJumbo.\(ext)", "The New York Times", (1050, 550), format)
        },
        Outlet(share: 0.034) { random in
            let (ext, format) = jpegOrPNG(0.5, &random)
            return picture("https://mondrian.mashable.com/2019%252F06%252F\(10 + random.below(20))%252F\(random.hex(2))%252F\(random.hex(32)).\(random.hex(5)).\(ext)%252F1200x630.\(ext)?signature=\(random.hex(27))=", "Mashable", (1200, 630), format)
        },
        Outlet(share: 0.024) { random in
            picture("https://api.time.com/wp-content/uploads/2024/07/\(slug(&random)).jpg?quality=85&w=1200&h=628&crop=1", "Time", (1200, 628))
        },
        Outlet(share: 0.024) { random in
            picture("https://cdn.vox-cdn.com/thumbor/\(random.hex(27))=/0x0:2040x1360/1200x628/filters:focal(1020x680:1021x681)/cdn.vox-cdn.com/uploads/chorus_asset/file/\(25_000_000 + random.below(999_999))/\(slug(&random)).jpg", "The Verge", (1200, 628))
        },
        Outlet(share: 0.019) { random in
            picture("https://i.kinja-img.com/gawker-media/image/upload/s--\(random.hex(8))--/c_fill,fl_progressive,g_center,h_900,q_80,w_1600/\(random.hex(20)).jpg", "Kotaku", (1600, 900))
        },
        Outlet(share: 0.015) { random in
            picture("https://media.wired.com/photos/\(random.hex(24))/191:100/w_1280,c_limit/\(slug(&random).capitalized).jpg", "Wired", (1280, 670))
        },
        Outlet(share: 0.015) { random in
            picture("https://www.reuters.com/resizer/v2/\(random.hex(26).uppercased()).jpg?auth=\(random.hex(64))&height=1005&width=1920&quality=80&smart=true", "Reuters", (1920, 1005))
        },
        Outlet(share: 0.015) { random in  // every ESPN picture is /combiner/i, named in ?img=
            picture("https://a2.espncdn.com/combiner/i?img=%2Fphoto%2F2024%2F0\(7 + random.below(2))\(10 + random.below(20))%2Fr\(1_300_000 + random.below(99_999))_1296x729_16%2D9.jpg", "ESPN", (1296, 729))
        },
        Outlet(share: 0.015) { random in
            picture("https://i.insider.com/\(random.hex(24))?width=1200&format=jpeg", "Business Insider", (1200, 900))
        },
        Outlet(share: 0.010) { random in
            picture("https://i0.wp.com/9to5mac.com/wp-content/uploads/sites/6/2024/07/\(slug(&random)).jpeg?resize=1200%2C628&quality=82", "9to5Mac", (1200, 628))
        },
        Outlet(share: 0.010) { random in
            picture("https://www.androidcentral.com/sites/androidcentral.com/files/styles/large/public/article_images/2019/05/\(slug(&random))-review-\(random.below(9)).jpg?itok=\(random.hex(8))", "Android Central", (1200, 675))
        },
        Outlet(share: 0.015) { random in
            picture("https://s.yimg.com/ny/api/res/1.2/\(random.hex(22))--/YXBwaWQ9aGlnaGxhbmRlcjt3PTEyMDA7aD04MDA-/https://media.zenfs.com/en/ap_finance_articles_694/\(random.hex(32))", "Yahoo Finance", (1200, 800))
        },
        Outlet(share: 0.010) { random in  // AP: the picture in ?url=, the path ends in /
            picture("https://dims.apnews.com/dims4/default/\(random.hex(7))/2147483647/strip/true/crop/3500x1969+0+182/resize/1440x810!/quality/90/?url=https%3A%2F%2Fassets.apnews.com%2F\(random.hex(2))%2F\(random.hex(2))%2F\(random.hex(32))%2F\(slug(&random, words: 2)).jpg", "Associated Press", (1440, 810))
        },
        Outlet(share: 0.112) { random in
            let host = ["nypost.com", "pagesix.com", "techcrunch.com", "hackaday.com", "uncrate.com", "static.politico.com",
                        "www.malaymail.com", "cdn.arstechnica.net", "cdn.macrumors.com", "heise.cloudimg.io", "www.washingtonpost.com",
                        "compote.slate.com", "kubrick.htvapps.com", "www.sciencedaily.com", "o.aolcdn.com", "www.theguardian.com",
                        "www.aljazeera.com", "static.foxnews.com", "www.engadget.com", "cdn.mos.cms.futurecdn.net",
                        "s.abcnewsfe.com", "images.wsj.net", "www.usatoday.com", "media.cnbc.com"][random.below(24)]
            let (ext, format) = jpegOrPNG(0.12, &random)
            let query = random.chance(0.4) ? "?quality=75&strip=all&w=1024" : ""
            return picture("https://\(host)/wp-content/uploads/2024/0\(7 + random.below(3))/\(slug(&random))-\(random.below(9_999)).\(ext)\(query)", host, (1200, 630), format)
        },
    ]
}
