// Replays a libCacheSim oracleGeneral trace (24-byte records: time u32, object id u64,
// size u32, next access i64, little-endian) through Caffeine in object mode and prints
// one JSON line per capacity: {"capacity": N, "missRatios": [one per run]}.
//
// The cache is weighted (every entry weighs 1, `maximumWeight`), as the simulator's object
// mode is: a cost limit of N unit-cost entries. Maintenance runs on the calling thread
// after every request (`cleanUp`), so each hit reaches the policy before the next request,
// as in the simulator, instead of being sampled by the read buffer. Caffeine seeds its
// frequency sketch's hash at random, so each run is one draw; several runs give its spread.
//
//   java -cp /usr/share/java/caffeine.jar CaffeineReplay.java TRACE RUNS CAPACITY...
import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.StringJoiner;

public class CaffeineReplay {
    public static void main(String[] args) throws Exception {
        if (args.length < 3) {
            System.err.println("usage: CaffeineReplay TRACE RUNS CAPACITY...");
            System.exit(2);
        }
        byte[] bytes = Files.readAllBytes(Paths.get(args[0]));
        if (bytes.length % 24 != 0) {
            System.err.println(args[0] + ": " + bytes.length + " bytes is not a whole number of 24-byte oracleGeneral records");
            System.exit(1);
        }
        ByteBuffer records = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
        int requests = bytes.length / 24;
        long[] objects = new long[requests];
        for (int index = 0; index < requests; index++) objects[index] = records.getLong(index * 24 + 4);
        int runs = Integer.parseInt(args[1]);
        for (int argument = 2; argument < args.length; argument++) {
            long capacity = Long.parseLong(args[argument]);
            StringJoiner ratios = new StringJoiner(",");
            for (int run = 0; run < runs; run++) ratios.add(Double.toString(missRatio(objects, capacity)));
            System.out.println("{\"capacity\":" + capacity + ",\"missRatios\":[" + ratios + "]}");
        }
    }

    static double missRatio(long[] objects, long capacity) {
        Cache<Long, Long> cache = Caffeine.newBuilder()
            .maximumWeight(capacity)
            .weigher((Long key, Long value) -> 1)
            .executor(Runnable::run)
            .build();
        long misses = 0;
        for (long object : objects) {
            Long key = object;
            if (cache.getIfPresent(key) == null) {
                misses++;
                cache.put(key, key);
            }
            cache.cleanUp();
        }
        return objects.length == 0 ? 0 : (double) misses / objects.length;
    }
}
