package verso;

import java.util.List;
import java.util.Objects;

/**
 * A semantic version: MAJOR.MINOR.PATCH, optional pre-release identifiers and build metadata.
 * Versions order by their numbers, then by their pre-release identifiers (a release sorts after
 * its pre-releases); build metadata never takes part in the order or in equality.
 */
public final class Version implements Comparable<Version> {
    private final int major;
    private final int minor;
    private final int patch;
    private final List<String> prerelease;
    private final String build;

    public Version(int major, int minor, int patch) {
        this(major, minor, patch, List.of(), "");
    }

    public Version(int major, int minor, int patch, List<String> prerelease, String build) {
        if (major < 0 || minor < 0 || patch < 0) {
            throw new IllegalArgumentException("version numbers must not be negative");
        }
        this.major = major;
        this.minor = minor;
        this.patch = patch;
        this.prerelease = List.copyOf(prerelease);
        this.build = Objects.requireNonNull(build, "build");
    }

    /** Parses "1.2.3", "v1.2.3", "1.2.3-rc.1" or "1.2.3+build.5"; see {@link VersionParser}. */
    public static Version parse(String text) {
        return VersionParser.parse(text);
    }

    public int major() {
        return major;
    }

    public int minor() {
        return minor;
    }

    public int patch() {
        return patch;
    }

    public List<String> prerelease() {
        return prerelease;
    }

    public String build() {
        return build;
    }

    public boolean isPrerelease() {
        return !prerelease.isEmpty();
    }

    /** The same numbers without pre-release identifiers or build metadata. */
    public Version release() {
        return new Version(major, minor, patch);
    }

    public Version nextMajor() {
        return new Version(major + 1, 0, 0);
    }

    public Version nextMinor() {
        return new Version(major, minor + 1, 0);
    }

    /** The next patch release; a pre-release's next patch is its own release. */
    public Version nextPatch() {
        return isPrerelease() ? release() : new Version(major, minor, patch + 1);
    }

    @Override
    public int compareTo(Version other) {
        int byNumbers = Integer.compare(major, other.major);
        if (byNumbers == 0) {
            byNumbers = Integer.compare(minor, other.minor);
        }
        if (byNumbers == 0) {
            byNumbers = Integer.compare(patch, other.patch);
        }
        return byNumbers != 0 ? byNumbers : Prerelease.compare(prerelease, other.prerelease);
    }

    public boolean isBefore(Version other) {
        return compareTo(other) < 0;
    }

    public boolean isAfter(Version other) {
        return compareTo(other) > 0;
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof Version)) {
            return false;
        }
        Version v = (Version) o;
        return major == v.major && minor == v.minor && patch == v.patch && prerelease.equals(v.prerelease);
    }

    @Override
    public int hashCode() {
        return Objects.hash(major, minor, patch, prerelease);
    }

    @Override
    public String toString() {
        StringBuilder out = new StringBuilder().append(major).append('.').append(minor).append('.').append(patch);
        if (isPrerelease()) {
            out.append('-').append(String.join(".", prerelease));
        }
        if (!build.isEmpty()) {
            out.append('+').append(build);
        }
        return out.toString();
    }
}
