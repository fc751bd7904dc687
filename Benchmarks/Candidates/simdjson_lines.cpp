// The simdjson candidate for reading trace lines (issue 18): the same work as TraceReader's
// decoder per line — find every field, decode numbers, copy the URL and format strings out —
// with simdjson's On-Demand API, over plain .jsonl traces. Events a second over all files.
//   g++ -O3 -std=c++17 simdjson_lines.cpp -lsimdjson -o simdjson_lines && ./simdjson_lines FILE...
#include <simdjson.h>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>
using namespace simdjson;

struct Image { int64_t id, bytes, width, height, boxWidth, boxHeight; uint64_t content; double scale; std::string url, format, priority; };

int main(int argc, char **argv) {
    std::vector<padded_string> files;
    for (int i = 1; i < argc; i++) files.push_back(padded_string::load(argv[i]).value());
    ondemand::parser parser;
    long checksum = 0;
    for (int round = 0; round < 5; round++) {
        auto start = std::chrono::steady_clock::now();
        long events = 0;
        for (auto &file : files) {
            ondemand::document_stream stream = parser.iterate_many(file).value();
            bool header = true;
            for (auto doc : stream) {
                if (header) { header = false; continue; }
                ondemand::object object = doc.get_object();
                int64_t t = 0; std::string_view type; Image image{};
                for (auto field : object) {
                    std::string_view key = field.unescaped_key().value();
                    if (key == "t") t = field.value().get_int64();
                    else if (key == "type") type = field.value().get_string();
                    else if (key == "image") {
                        for (auto f : field.value().get_object()) {
                            std::string_view k = f.unescaped_key().value();
                            auto v = f.value();
                            if (k == "id") image.id = v.get_int64(); else if (k == "bytes") image.bytes = v.get_int64();
                            else if (k == "width") image.width = v.get_int64(); else if (k == "height") image.height = v.get_int64();
                            else if (k == "boxWidth") image.boxWidth = v.get_int64(); else if (k == "boxHeight") image.boxHeight = v.get_int64();
                            else if (k == "content") image.content = v.get_uint64(); else if (k == "scale") image.scale = v.get_double();
                            else if (k == "url") image.url = std::string(v.get_string().value());
                            else if (k == "format") image.format = std::string(v.get_string().value());
                            else if (k == "priority") image.priority = std::string(v.get_string().value());
                        }
                    } else if (key == "url" || key == "level") { std::string s(field.value().get_string().value()); checksum += s.size(); }
                    else if (key == "id" || key == "session") checksum += field.value().get_int64();
                    else if (key == "offline") checksum += field.value().get_bool();
                }
                checksum += t + type.size() + image.url.size() + image.bytes;
                events++;
            }
        }
        double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        std::printf("%ld events, %.0f k events/s\n", events, events / seconds / 1e3);
    }
    return checksum == 42;
}
