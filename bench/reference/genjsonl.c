/*
 * bench/gen.py's JSON Lines without photos (`gen.py N FILE --jsonl
 * --no-images`), byte for byte, at C speed: the scale section's input.
 *
 *     gcc -O2 -o genjsonl bench/reference/genjsonl.c
 *     ./genjsonl 10000000 out.jsonl
 *
 * gen.py draws every value from Python's `random.Random(20140619)`, a
 * Mersenne Twister (MT19937) seeded by `init_by_array` with the seed's
 * 32-bit words. This file is that generator and the same draws in the
 * same order: `getrandbits(k)` for k <= 32 is the next word shifted
 * right by 32 - k, for 128 the next four words, least significant first;
 * `random()` takes two words (27 and 26 bits); `randrange(n)` and
 * `choice` draw `getrandbits(n.bit_length())` until below n. A rating
 * `round(5 * random(), 2)` prints as Python's `repr` does: the value
 * correctly rounded to two decimals, trailing zeros dropped (glibc's
 * `%.2f` rounds the exact binary value, half to even, as Python's
 * `round` does).
 *
 * gen.py stays the definition (and writes every other kind of file);
 * bench/harness.py uses this program when gcc can build it. Compared
 * with `cmp` against gen.py's output: 200,000 and 1,000,000 records, and
 * the first 249 MB of 10,000,000. Written to FILE.tmpPID, then renamed,
 * as gen.py does.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define N 624
#define M 397
static uint32_t mt[N];
static int mti = N + 1;

static void init_genrand(uint32_t s) {
    mt[0] = s;
    for (mti = 1; mti < N; mti++) mt[mti] = 1812433253U * (mt[mti - 1] ^ (mt[mti - 1] >> 30)) + (uint32_t)mti;
}

static void init_by_array(const uint32_t *key, size_t length) {
    init_genrand(19650218U);
    size_t i = 1, j = 0, k = N > length ? N : length;
    for (; k; k--) {
        mt[i] = (mt[i] ^ ((mt[i - 1] ^ (mt[i - 1] >> 30)) * 1664525U)) + key[j] + (uint32_t)j;
        i++, j++;
        if (i >= N) { mt[0] = mt[N - 1]; i = 1; }
        if (j >= length) j = 0;
    }
    for (k = N - 1; k; k--) {
        mt[i] = (mt[i] ^ ((mt[i - 1] ^ (mt[i - 1] >> 30)) * 1566083941U)) - (uint32_t)i;
        i++;
        if (i >= N) { mt[0] = mt[N - 1]; i = 1; }
    }
    mt[0] = 0x80000000U;
}

static uint32_t genrand(void) {
    static const uint32_t mag01[2] = {0x0U, 0x9908b0dfU};
    uint32_t y;
    if (mti >= N) {
        int kk;
        for (kk = 0; kk < N - M; kk++) {
            y = (mt[kk] & 0x80000000U) | (mt[kk + 1] & 0x7fffffffU);
            mt[kk] = mt[kk + M] ^ (y >> 1) ^ mag01[y & 0x1U];
        }
        for (; kk < N - 1; kk++) {
            y = (mt[kk] & 0x80000000U) | (mt[kk + 1] & 0x7fffffffU);
            mt[kk] = mt[kk + (M - N)] ^ (y >> 1) ^ mag01[y & 0x1U];
        }
        y = (mt[N - 1] & 0x80000000U) | (mt[0] & 0x7fffffffU);
        mt[N - 1] = mt[M - 1] ^ (y >> 1) ^ mag01[y & 0x1U];
        mti = 0;
    }
    y = mt[mti++];
    y ^= (y >> 11);
    y ^= (y << 7) & 0x9d2c5680U;
    y ^= (y << 15) & 0xefc60000U;
    y ^= (y >> 18);
    return y;
}

static uint32_t bits(int k) { return genrand() >> (32 - k); }

static double unit(void) {
    uint32_t a = genrand() >> 5, b = genrand() >> 6;
    return (a * 67108864.0 + b) * (1.0 / 9007199254740992.0);
}

/* randrange(n): getrandbits(n.bit_length()) until below n. */
static uint32_t below(uint32_t n, int k) {
    uint32_t r = bits(k);
    while (r >= n) r = bits(k);
    return r;
}

static int bit_length(uint32_t n) {
    int k = 0;
    while (n) { k++; n >>= 1; }
    return k;
}

static const char *ADJECTIVES[] = {"Classic", "Midnight", "Velvet", "Silk", "Paisley", "Striped",
                                   "Dotted", "Tartan", "Knitted", "Linen", "Satin", "Cr\xc3\xaap" "e"};
static const char *SLUGS[] = {"classic", "midnight", "velvet", "silk", "paisley", "striped",
                              "dotted", "tartan", "knitted", "linen", "satin", "crepe"};
static const char *NOUNS[] = {"Bow Tie", "Self-Tie", "Butterfly", "Batwing", "Diamond Point",
                              "Club Round", "Pre-Tied Bow", "Thistle"};
static const char *COLOURS[] = {"Red", "Orange", "Yellow", "Green", "Blue", "Indigo", "Violet"};
static const char *PHOTOS[] = {"red", "orange", "yellow", "green", "blue", "indigo", "violet"};
static const char LETTERS[] = "ROYGBIV";
#define DATE_FROM 1262304000L
#define DATE_TO 1735689600L

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: %s COUNT FILE.jsonl\n", argv[0]);
        return 64;
    }
    long count = strtol(argv[1], NULL, 10);
    char temporary[4096];
    snprintf(temporary, sizeof temporary, "%s.tmp%ld", argv[2], (long)getpid());
    FILE *out = fopen(temporary, "w");
    if (!out) { perror(temporary); return 73; }
    static char buffer[1 << 20];
    setvbuf(out, buffer, _IOFBF, sizeof buffer);
    uint32_t key[1] = {20140619U};
    init_by_array(key, 1);
    const uint32_t span = (uint32_t)(DATE_TO - DATE_FROM);
    const int k_span = bit_length(span);
    for (long i = 0; i < count; i++) {
        uint32_t w[4];
        for (int j = 0; j < 4; j++) w[j] = genrand();
        /* uuid.UUID(int=…, version=4): variant 10, version 4. */
        w[1] = (w[1] & 0x3FFFFFFFU) | 0x80000000U;
        w[2] = (w[2] & ~0xF000U) | 0x4000U;
        char hex[33];
        snprintf(hex, sizeof hex, "%08" PRIX32 "%08" PRIX32 "%08" PRIX32 "%08" PRIX32, w[3], w[2], w[1], w[0]);
        uint32_t adjective = below(12, 4);
        uint32_t noun = below(8, 4);
        int colour = (int)(i % 7);
        int joined = unit() < 0.0625;
        char rating[32];
        if (unit() < 0.5) {
            snprintf(rating, sizeof rating, "%.2f", below(21, 5) / 4.0);
        } else {
            snprintf(rating, sizeof rating, "%.2f", 5 * unit());
        }
        /* Python's repr of the rounded value: trailing zeros and a bare
           point dropped (an integral rating prints as an integer). */
        size_t length = strlen(rating);
        while (rating[length - 1] == '0') rating[--length] = 0;
        if (rating[length - 1] == '.') rating[--length] = 0;
        uint32_t times = below(500, 9);
        time_t last = (time_t)(DATE_FROM + below(span, k_span));
        int favourite = unit() < 0.1;
        uint32_t red = below(256, 9), green = below(256, 9), blue = below(256, 9);
        struct tm tm;
        gmtime_r(&last, &tm);
        fprintf(out,
                "{\"id\": \"%.8s-%.4s-%.4s-%.4s-%.12s\", \"isFavorite\": %s, "
                "\"lastWorn\": \"%04d-%02d-%02dT%02d:%02d:%02dZ\", \"name\": \"%s %s%s%s %ld\", "
                "\"rating\": %s, \"searchKey\": \"%c%ld\", \"timesWorn\": %" PRIu32 ", "
                "\"tintColor\": \"#%02" PRIX32 "%02" PRIX32 "%02" PRIX32 "\", "
                "\"url\": \"https://example.com/ties/%s-%s-%ld\"}\n",
                hex, hex + 8, hex + 12, hex + 16, hex + 20, favourite ? "true" : "false", tm.tm_year + 1900,
                tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, ADJECTIVES[adjective], COLOURS[colour],
                joined ? " & Gold " : " ", NOUNS[noun], i, rating, LETTERS[i % 7], i, times, red, green, blue,
                SLUGS[adjective], PHOTOS[colour], i);
    }
    if (fclose(out) != 0) { perror(temporary); return 74; }
    if (rename(temporary, argv[2]) != 0) { perror(argv[2]); return 73; }
    return 0;
}
