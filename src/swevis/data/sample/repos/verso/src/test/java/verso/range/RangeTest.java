package verso.range;

import verso.ParseException;
import verso.Version;
import verso.testing.Check;
import verso.testing.Test;

public class RangeTest {
    private static boolean in(String range, String version) {
        return Range.parse(range).includes(Version.parse(version));
    }

    @Test
    public void exactVersion() {
        Check.isTrue(in("1.2.3", "1.2.3"), "1.2.3 in 1.2.3");
        Check.isFalse(in("1.2.3", "1.2.4"), "1.2.4 not in 1.2.3");
    }

    @Test
    public void comparatorSet() {
        Check.isTrue(in(">=1.2.0 <2.0.0", "1.9.9"), "1.9.9");
        Check.isFalse(in(">=1.2.0 <2.0.0", "2.0.0"), "2.0.0");
        Check.isFalse(in(">1.2.0", "1.2.0"), "strict lower bound");
        Check.isTrue(in("<=1.2.0", "1.2.0"), "inclusive upper bound");
    }

    @Test
    public void caretKeepsLeftmostNonZero() {
        Check.isTrue(in("^1.2.3", "1.9.0"), "^1.2.3 allows 1.9.0");
        Check.isFalse(in("^1.2.3", "2.0.0"), "^1.2.3 stops before 2.0.0");
        Check.isTrue(in("^0.2.3", "0.2.9"), "^0.2.3 allows 0.2.9");
        Check.isFalse(in("^0.2.3", "0.3.0"), "^0.2.3 stops before 0.3.0");
        Check.isFalse(in("^0.0.3", "0.0.4"), "^0.0.3 is exact");
    }

    @Test
    public void tildeKeepsMinor() {
        Check.isTrue(in("~1.2.3", "1.2.9"), "~1.2.3 allows 1.2.9");
        Check.isFalse(in("~1.2.3", "1.3.0"), "~1.2.3 stops before 1.3.0");
    }

    @Test
    public void wildcards() {
        Check.isTrue(in("1.x", "1.7.0"), "1.x");
        Check.isFalse(in("1.2.*", "1.3.0"), "1.2.*");
        Check.isTrue(in("*", "0.0.1"), "*");
    }

    @Test
    public void alternatives() {
        Check.isTrue(in("^1.0.0 || ^3.0.0", "3.1.0"), "second alternative");
        Check.isFalse(in("^1.0.0 || ^3.0.0", "2.1.0"), "neither");
    }

    @Test
    public void prereleasesOnlyWhenNamed() {
        Check.isFalse(in("^1.2.0", "1.3.0-beta.1"), "a pre-release of another release");
        Check.isTrue(in("^1.3.0-beta.1", "1.3.0-beta.2"), "a pre-release of the named release");
    }

    @Test
    public void rejectsWildcardAfterOperator() {
        Check.raises(ParseException.class, () -> Range.parse(">=1.x"));
    }

    @Test
    public void printsNormalized() {
        Check.equal(">=1.2.3 <2.0.0", Range.parse("^1.2.3").toString());
        Check.equal(">=1.2.0 <1.3.0 || *", Range.parse("1.2 || *").toString());
    }
}
