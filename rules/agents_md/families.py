"""Phrasing families: the common ways agent guides say what AGT002-AGT005 check, and what no rule checks yet.

A rule's own `recognisers` hold the phrasings its docs show; a family holds the other common phrasings of
the same convention, written once for every rule it serves, so that a guide nobody tuned on is read as
well as the guides the rules were written from. Each family is a set of pattern sources over a normalised
clause (no backticks or emphasis; see reader.normalise), read by the reader as a rule's recognisers are: a
group named `act` marks the verb a negation may undo.

Families turn rules on or are "known" (understood, no rule yet); they never turn a rule off: an opt-out
needs a rule subject (reader.Recogniser._effect), which a phrasing family does not give.
"""

from __future__ import annotations

import re

# A prohibition in front of the verb ("Never", "do not", "avoid", "must not").
_NO = r"(?:\b(?:no|not|never|avoid|stop|forbidden|prohibited)\b|n't\b)"

# --- trunk: the branch pull requests target (AGT004) ---------------------------------------------------

# Names a trunk goes by, perhaps behind a remote (`upstream/main`) ...
TRUNK_NAME = r"(?:[\w.-]+/)?(?:main|master|develop(?:ment)?|devel|dev|trunk|next|staging|canary|unstable)"
# ... and, where the sentence says it is speaking of a branch, any name that looks like one (`dev-v3`,
# `release/2.x`, `2.x`). A generic word ("the base branch is behind") is none of them; neither is a version
# where the sentence need not be about branches ("Builds must target node-18", "target 3.11").
TRUNK_BRANCH = r"(?:" + TRUNK_NAME + r"|[a-z][\w.]*[-/][\w./-]*\w|v?\d+(?:\.(?:\d+|x))+)"
# PRs in general, not one kind of them ("Release PRs go to main" says nothing of feature PRs).
ALL_PRS = (
    r"(?<!hotfix\s)(?<!hotfix-)(?<!release\s)(?<!backport\s)(?<!dependabot\s)(?<!renovate\s)(?<!docs\s)"
    r"(?<!bump\s)(?<!bump-)(?<!version\s)(?<!stacked\s)"
    r"\b(?:PRs?|pull\s+requests?|merge\s+requests?)\b"
)
# What is not the end of a one-branch statement: another branch joined to it ("to dev and main").
_NOT_A_LIST = r"(?!\s*(?:,|/|&|\band\b|\bor\b)\s*['\"]?(?:" + TRUNK_BRANCH + r")\b)"

# Sentences that name the trunk. Group `branch` holds its name (trunk.trunk_named reads it from there).
TRUNK = (
    # "The default branch is master", "The main branch of this repository is develop", "Base branch: main",
    # "The git base branch is `main`", "Default branch: **master**".
    r"\b(?P<act>(?:default|base|target|trunk|integration|main|development|primary|mainline)\s+branch)"
    r"(?:\s+and\s+\w+\s+branch)?"
    r"(?:\s+(?:of|for|in)\s+(?:this|the|our)\s+(?:repo(?:sitory)?|project|codebase))?"
    r"(?:\s+for\s+(?:all\s+|new\s+|v?\d+\s+)?(?:PRs?|pull\s+requests?|changes|contributions))?"
    r"\s*(?:is|=|:|should\s+be|must\s+be|will\s+be|\(\s*(?:typically|usually|normally|always|by\s+default))\s+"
    r"(?:always\s+|currently\s+|still\s+)?(?:the\s+)?"
    r"['\"]?(?P<branch>" + TRUNK_BRANCH + r")\b(?!\s+branch\s+(?:protection|rules?))(?!\s*(?:->|\u2192|=>))",
    # "Always use `dev` as the base branch", "Treat `upstream/main` as the only mainline baseline".
    r"\b(?P<act>use[sd]?|treat(?:s|ed)?|consider(?:s|ed)?|assumes?)\s+['\"]?(?P<branch>"
    + TRUNK_BRANCH
    + r")['\"]?"
    r"(?:\s+branch)?\s+as\s+(?:the|your|our|its|their)\s+(?:only\s+|single\s+|one\s+)?(?:base|target|default|trunk|integration|mainline)"
    r"(?:\s+(?:branch|baseline))?\b",
    # "`upstream/main` is the only target branch", "develop is our integration branch".
    r"(?<![\w/-])(?P<branch>" + TRUNK_BRANCH + r")\s+is\s+(?:the|our)\s+(?:only\s+|single\s+|one\s+)?"
    r"(?:target|default|base|integration|mainline|development)(?:\s+main)?\s+(?:branch|baseline)\b",
    # An imperative to target a branch: "Target `master`", "always target develop", "Submit against main".
    r"(?:^|\b(?:always|should|must|please|and|then|to)\s+)\W*(?P<act>target|submit\s+(?:\w+\s+)?against|"
    r"base\s+(?:your\s+|all\s+|the\s+)?(?:PRs?|pull\s+requests?|work|changes?)\s+on)\s+(?:the\s+)?['\"]?"
    r"(?P<branch>" + TRUNK_NAME + r")\b" + _NOT_A_LIST,
    # PRs based on one branch: "Pull requests should be based on `dev`".
    r"(?P<act>" + ALL_PRS + r")(?:\s+(?!(?:not|never|no)\b)\w+(?<!n't)){0,3}?\s+based\s+(?:on|off)\s+"
    r"(?:of\s+)?(?:the\s+)?['\"]?(?P<branch>" + TRUNK_NAME + r")\b" + _NOT_A_LIST,
    # An imperative to open PRs against one branch, whatever follows: "Open the PR against `main` and fill
    # in the template", "Open pull requests against master, from a branch in a fork" (not what some
    # automation does: "the bot opens a PR against main").
    r"(?:^[^\w\"'\u201c]*|\b(?:always|please|then|and|to|must|should)\s+)"
    r"(?P<act>open|create|submit|send|make|raise|file)\s+"
    r"(?:(?:all|your|the|a|new|any|every|each)\s+)?"
    + ALL_PRS
    + r"(?:\s*\((?:PRs?|MRs?)\))?(?:\s+from\s+(?:(?:the|a|your)\s+)?(?:fork|branch|feature\s+branch))?"
    + r"\s+(?:back\s+)?(?:to|into|against|targeting|for)\s+(?:the\s+)?(?:upstream\s+)?"
    + r"['\"]?(?P<branch>"
    + TRUNK_NAME
    + r")\b(?!-)"
    + _NOT_A_LIST,
    # Work merged into one branch through pull requests: "feature branches, which are then merged into
    # `main` via pull requests".
    r"\b(?P<act>merged?)\s+(?:back\s+)?into\s+(?:the\s+)?['\"]?(?P<branch>" + TRUNK_NAME + r")['\"]?"
    r"(?:\s+branch)?\s+(?:via|through|by|with|using)\s+(?:a\s+|the\s+)?" + ALL_PRS,
    # The base given to the PR command: "Use `--base main` for PRs", "gh pr create --base develop".
    r"(?:\b(?P<act>use)\s+|\bpr\s+create\b.{0,80}?)--base[=\s]+['\"]?(?P<branch>"
    + TRUNK_NAME
    + r")\b(?!-)"
    + _NOT_A_LIST,
    # A branch list: "Main development: `main` branch", "Development branch: dev".
    r"^\W*(?:main\s+|primary\s+)?(?P<act>development)(?:\s+branch)?\s*:\s*['\"]?(?P<branch>"
    + TRUNK_NAME
    + r")\b(?!-)"
    + _NOT_A_LIST,
    # PRs defaulted to a base: "Default all ... PRs to base branch `dev-latest`".
    r"\b(?:to|onto|against)\s+(?:the\s+)?(?P<act>base|target)\s+branch\s+['\"]?(?P<branch>"
    + TRUNK_BRANCH
    + r")(?![\w/-])"
    + _NOT_A_LIST,
)

# --- test strength: tests must not be weakened to pass (AGT003) or unable to fail (AGT002) ---------------

# Verbs of weakening a test, and of making it not run.
_WEAKEN = (
    r"(?:weaken|relax|loosen|water\s+down|dilut|hack|bypass|game|gaming|cheat|fudg|massag|bend|"
    r"skip|disabl|delet|remov|comment\w*\s+out|xfail|silenc|downgrad|soften|neuter|gut)\w*"
)
# Those that say weakening by themselves: deleting or skipping a test may be housekeeping ("never delete the
# test" beside "update the expected values" asks nothing of the expectations), weakening one never is.
_STRONG = (
    r"(?:weaken|relax|loosen|water\s+down|dilut|hack|bypass|gam(?:e|ing)|cheat|fudg|massag|bend|downgrad|"
    r"soften|neuter)"
)
_WEAKENS = (
    r"(?:"
    + _WEAKEN
    + r")(?:\s*,\s*(?:or\s+|and\s+)?(?:"
    + _WEAKEN
    + r")|\s+(?:or|and)\s+(?:"
    + _WEAKEN
    + r"))*"
)
# The object: tests or what they assert, perhaps with a word or two before ("existing unit tests").
_TEST_OBJECT = (
    r"(?:(?:an?|the|any|all|these|those|existing|failing|flaky|current|passing|broken|unit|integration|"
    r"e2e|snapshot|regression|old|other)\s+){0,3}(?:tests?|assertions?|asserts?|expectations?|test\s+cases?)\b"
)
# Why a test is edited, the motive AGT003 is about ("to make them pass", "just to get CI green").
_MOTIVE = r"\b(?:pass\w*|green|succeed|go\s+away|hide|accommodate|match|fit|silence|unblock)\b"

# Round six: every verb of changing a test, what a test checks by any name, and the reasons that make such
# a change the one AGT003 is about (a motive, a missing permission, or in passing with other work).
_ANY_EDIT = (
    r"(?:weaken|relax|loosen|lower|skip|disabl|delet|remov|modif|chang|edit|adjust|alter|flip|hid|conceal|"
    r"mute|silenc|xfail|rewrit|comment\w*\s+out)\w*"
)
_ANY_EDITS = _ANY_EDIT + r"(?:\s*,\s*(?:or\s+|and\s+)?" + _ANY_EDIT + r"|\s+(?:or|and)\s+" + _ANY_EDIT + r")*"
# (Not what runs the tests, "Don't modify the test harness to make flaky tests pass", nor checks of another
# kind, "Don't relax the type checks".)
_CHECKED = (
    r"(?:tests?\b(?!\s+(?:harness\w*|helpers?|utilit\w*|infra\w*|framework|runners?|setup|config\w*|commands?|"
    r"scripts?|environments?)\b)|(?<!type\s)(?<!lint\s)(?<!style\s)(?:assertions?|asserts?|expectations?|checks?|"
    r"snapshots?|snap|oracles?|examples?|expected\s+(?:outputs?|values?|results?)|golden\s+files?|test\s+standards)"
    r"\b)"
)
_WHY = (
    r"\bto\s+(?:make|get|let)\b.{0,40}?"
    + _MOTIVE
    + r"|\b(?:merely|just|only)\s+to\b|\bto\s+(?:conceal|hide|mask|"
    r"accommodate|paper\s+over)\b|\bwithout\s+(?:an?\s+)?(?:explicit\s+|prior\s+|written\s+)?(?:human\s+|user\s+|"
    r"maintainer\s+|owner\s+)?(?:permission|approval|sign-?off)\b|\bunless\s+(?:explicitly|you\s+are\s+told|told|"
    r"asked)\b|\bwhen\s+(?:changing|adding|fixing|modifying|refactoring|updating)\b"
)

AGT003 = (
    # "Never weaken tests", "Do not hack, weaken, or bypass tests", "Do not relax assertions".
    _NO
    + r"\s+(?:\w+\s+){0,3}?(?=(?:[\w-]+[\s,]+){0,6}?"
    + _STRONG
    + r")(?:"
    + _WEAKENS
    + r")\s+"
    + _TEST_OBJECT,
    # Removing tests that exist: "Do not delete existing tests", "Never skip failing tests".
    _NO + r"\s+(?:\w+\s+){0,3}?(?:" + _WEAKENS + r")\s+(?:(?:an?|the|any|all)\s+)?(?:existing|failing|flaky|"
    r"broken|passing|current|old)\s+(?:\w+\s+)?(?:tests?|assertions?|test\s+cases?)\b",
    # ... or for a motive: "Don't skip tests due to type issues", "never remove a test just to get CI green".
    _NO + r"\s+(?:\w+\s+){0,3}?(?:" + _WEAKENS + r")\s+" + _TEST_OBJECT + r".*?\b(?:to\s+(?:make|get|let)|"
    r"(?:just|merely|simply|only)\s+to|due\s+to|because|so\s+that)\b",
    # A pronoun for a test named before: "If a test was already broken ..., do not silently skip it".
    r"^(?=.*\btests?\b).*?" + _NO + r"\s+(?:\w+\s+){0,2}?(?:(?:skip|disabl|weaken|xfail|silenc)\w*)"
    r"\s+(?:it|them)\b",
    # Checks skipped or bypassed to get a change through: "Do not skip or bypass these checks to make a PR
    # pass" (the motive says it is the change that is to pass, not the checks' own business).
    _NO + r"\s+(?:\w+\s+){0,3}?(?:" + _WEAKENS + r")\s+(?:(?:these|the|any|required|CI)\s+)?checks\b.*?"
    r"\bto\s+(?:make|get|let)\b.*?" + _MOTIVE,
    # A noun phrase in a checklist: "No weakened assertions", "No skipped or deleted tests".
    r"^\W*(?:no)\s+(?:" + _WEAKEN + r")(?:\s+(?:or|and)\s+(?:" + _WEAKEN + r"))?\s+" + _TEST_OBJECT,
    # The code is wrong, not the test: "fix the code, not the test", "your code is wrong, not the test".
    r"\b(?:code|implementation|production\s+code|source)\s+is\s+(?:what's\s+)?wrong,?\s+not\s+the\s+tests?\b",
    r"\bfix\s+(?:the\s+)?(?:code|implementation|bug|root\s+cause|underlying\s+(?:problem|issue|bug))\w*,?\s+"
    r"(?:not|never|rather\s+than|instead\s+of)\s+(?:\w+ing\s+)?(?:the\s+)?(?:tests?|assertions?)\b",
    # The edit named as the thing not to do: "instead of bending the test", "rather than altering tests to
    # make them pass".
    r"\b(?:instead\s+of|rather\s+than)\s+(?:(?:bend|weaken|relax|loosen|alter|chang|edit|rewrit|modif|"
    r"adjust|tweak|hack)\w*)\s+" + _TEST_OBJECT,
    # Tests marked as not to run: "Do not mark failing tests as skipped or xfail to get CI green".
    _NO + r"\s+(?:\w+\s+){0,3}?mark\w*\s+" + _TEST_OBJECT + r"\s+as\s+(?:skip\w*|xfail\w*|flaky|ignored|"
    r"pending|todo|known[-\s]fail\w*)",
    # Edited to fit, said of a test named before: "Tests are the specification; don't change them to match
    # your code".
    r"^(?=.*\btests?\b).*?" + _NO + r"\s+(?:\w+\s+){0,2}?(?:chang|modif|edit|rewrit|updat|adjust|alter|tweak)"
    r"\w*\s+(?:it|them)\s+(?:just\s+|only\s+|merely\s+|simply\s+)?to\s+(?:make|get|match|fit|pass|suit|"
    r"accommodate|agree)\b",
    # The weakening named as the way not to "fix" a test: "Do not fix it by reducing what it checks".
    _NO
    + r"\s+(?:[\w\"']+\s+){0,5}?\bby\s+(?:reduc|weaken|narrow|loosen|relax|lower|limit|shrink)\w*\s+what\s+"
    r"(?:it|they|the\s+tests?)\s+(?:check|assert|cover|test|verif)\w*",
    # Changes that make tests stop running: "do not land changes that cause the test binary to silently
    # skip tests".
    _NO + r"\s+(?:\w+\s+){0,7}?(?:that|which)\s+(?:cause|make|let)s?\b.{0,40}?\b"
    r"(?:(?:silently\s+|quietly\s+)?(?:skip|disabl|drop|ignor|bypass)\w*\s+(?:\w+\s+)?tests?\b|"
    r"tests?\s+(?:to\s+)?(?:be\s+)?(?:silently\s+|quietly\s+)?(?:skipp|disabl|dropp|ignor|bypass)\w*)",
    # Keep the expectation as it is: "keep the test exact", "keep assertions strict".
    r"\b(?:keep)\s+(?:the\s+)?(?:tests?|assertions?|expectations?)\s+(?:exact|strict|intact|as\s+is|"
    r"unchanged)\b",
    # A check kept rather than weakened: "Keep exact call count checks rather than weakening to ...", "Keep
    # specific header assertions rather than removing them".
    r"\b(?:keep|preserve|retain|maintain)\w*\s+(?:\S+\s+){0,5}?(?:assert\w*|checks?|expectations?|tests?)\b"
    r".{0,80}?\b(?:rather\s+than|instead\s+of)\s+(?:" + _WEAKEN + r"|dropp\w*|los\w*)",
    # Tests the change is not about left alone: "do not change unrelated tests", "Never modify existing tests
    # unless the task requires it".
    _NO + r"\s+(?:\w+\s+){0,3}?(?:chang|modif|edit|touch|rewrit|alter)\w*\s+(?:(?:any|the)\s+)?"
    r"(?:unrelated|other|existing)\s+(?:\w+\s+)?tests?\b",
    # A list of the tests not to weaken, and the motive: "never delete or weaken leakage, timing, cost or
    # safety tests to make a change pass".
    _NO + r"\s+(?:\w+\s+){0,3}?(?:" + _WEAKENS + r")\s+(?:[\w/-]+,?\s+){0,14}?tests?\b.{0,40}?"
    r"\bto\s+(?:make|get|let)\b.{0,40}?" + _MOTIVE,
    # Skipped to hide what fails: "Using `@pytest.mark.skip` to hide infrastructure requirements".
    r"\b(?:skip|xfail|disabl|mark\w*\s+(?:\w+\s+)?as\s+skip)\w*\b.{0,40}?\bto\s+(?:hide|mask|silence|"
    r"paper\s+over|sweep)\b",
    # Run green without weakening, said as a condition or a checklist question: "all tests pass without
    # weakening assertions".
    r"\bpass\w*\s+without\s+(?:" + _STRONG + r"|skipp|disabl|delet|remov)\w*\s+(?:any\s+)?" + _TEST_OBJECT,
    # Tests taken out of the run, said bare: "Do not disable tests", "never comment out tests" (not "skip
    # tests", which as often means not writing them: "Do not skip tests for behavior changes").
    _NO + r"\s+(?:\w+\s+){0,2}?(?:disabl|xfail|comment\w*\s+out)\w*\s+(?:(?:the|any|a|your)\s+)?"
    r"(?:existing\s+|failing\s+|flaky\s+)?tests?\b(?!\s+(?:when|while|before|after|if|locally|during|runs?)\b)",
    # Skip markers banned: "`test.skip`/`it.skip` are forbidden".
    r"^(?=.*\btests?\b).*?\b(?:skip|xfail|only|todo|ignore|disabled)\b.{0,80}?\b(?:are|is)\s+(?:forbidden|"
    r"banned|prohibited|not\s+allowed|disallowed)\b",
    # Something weakened to make a test pass: "must not weaken acceptance criteria to make a component pass"
    # (not any edit: "Never edit generated code to make the tests pass" is about generated code).
    _NO + r"\s+(?:\w+\s+){0,2}?(?:weaken|relax|loosen|lower)\w*\b.{0,80}?\bto\s+"
    r"(?:make|get)\s+(?:(?:a|the|any|your|failing|broken)\s+)?(?:\w+\s+)?(?:tests?|components?|checks?)\s+"
    r"(?:to\s+)?pass\b",
    # A test "fixed" by weakening it: "Do not "fix" a test by weakening that assert", "certainly not to "fix"
    # a test failure".
    _NO
    + r"\s+(?:\w+\s+){0,2}?[\"']?fix[\"']?\s+(?:(?:a|the|any|failing)\s+)*tests?\s+by\s+(?:"
    + _WEAKEN
    + r"|chang\w*|edit\w*)",
    r"\bnot\s+to\s+[\"']?fix[\"']?\s+(?:(?:a|the|any)\s+)?(?:failing\s+)?tests?(?:\s+failures?)?\b",
    # Round six (tuned on the spent s6 set): the verb, what it is done to and why, composed. Any edit of
    # a test or what it expects, made to hide a defect, to make something pass, without permission, or
    # in passing: "Never delete, skip, weaken, or modify a test to conceal a product defect", "Do not modify
    # or delete tests without explicit human permission", "Do not remove tests when changing rate-limit
    # logic", "Do not delete the .snap files to make tests pass".
    _NO + r"\s+(?:\w+\s+){0,3}?(?:" + _ANY_EDITS + r")\s+(?:(?:a|an|the|any|all|established|existing)\s+)?"
    r"(?:[\w.*/-]+\s+){0,3}?" + _CHECKED + r".{0,60}?(?:" + _WHY + r")",
    # A strong verb needs no motive, whatever the checks are called: "Do not weaken failure-path checks",
    # "do not weaken an oracle", "NO lowering test standards".
    _NO
    + r"\s+(?:\w+\s+){0,3}?(?:weaken|relax|loosen|lower|water\s+down|soften)\w*\s+(?:(?:a|an|the|any)\s+)?"
    r"(?:[\w-]+\s+(?:or\s+)?){0,3}?" + _CHECKED,
    # Tests taken out of the run, whatever kind: "Do not skip or disable security tests", "Never skip tests"
    # (not when to run them, "don't skip tests when committing", nor writing them, "do not skip tests for
    # behavior changes", nor where they run, "Don't skip tests in CI").
    _NO + r"\s+(?:\w+\s+){0,2}?(?:skip|disabl|xfail)\w*(?:\s+(?:or|and)\s+(?:skip|disabl|delet|remov)\w*)?\s+"
    r"(?:(?:a|the|any|all)\s+)?(?:[\w-]+\s+){0,2}?tests?\b(?!\s+(?:when|while|before|after|if|locally|during|"
    r"runs?)\b)(?!\s+for\s+(?:\w+\s+)?(?:changes?|features?|fixes)\b)(?!\s+(?:in|on)\s+CI\b)",
    r"\b(?:none|no\s+tests?)\s+(?:should|must|may|can)\s+be\s+(?:skipped|disabled|xfailed|deleted|removed)\b",
    # Failures hidden: "Tests that fail indicate problems - never hide them", "Don't hide the problem with
    # `skip`", "don't hide failures behind environment variables".
    r"^(?=.*\b(?:tests?|skip\w*)\b).*?"
    + _NO
    + r"\s+(?:\w+\s+){0,2}?(?:hid|mask|conceal)\w*\s+(?:(?:the|their|any|"
    r"test)\s+)?(?:failures?|failing\s+tests?|them|it|the\s+problem|problems)\b",
    # Skip markers refused: "No `@test_skip`", "never use BATS `skip` unless told to".
    r"^\W*no\s+@?[\w.]*skip\w*\b",
    _NO + r"\s+(?:\w+\s+){0,2}?use\s+(?:[\w@.-]+\s+){0,2}?@?(?:\w+[._])?skip\w*\b",
    # Expected outputs left alone: "MUST NEVER modify files in `test/expected/`".
    _NO
    + r"\s+(?:\w+\s+){0,2}?(?:modif|edit|chang|touch|overwrit)\w*\s+(?:(?:the|any)\s+)?(?:files?\s+in\s+)?"
    r"[\w./-]*expected\b",
)

# Under a heading that says not to weaken tests, the items that name a way of doing it: "Removing a test
# function or test file", "Downgrading an assertion", "Commenting out the body of a test", "Adding
# `@Ignore` or any conditional skip". A gerund (or a bare verb) of a change that makes a test check less,
# and a test, assertion, expectation or skip in the item.
WAYS_TO_WEAKEN = re.compile(
    r"^\W*(?:\w+:\s+)?(?:"
    r"(?:remov|delet|drop|skip|disabl|comment\w*\s+out|downgrad|weaken|relax|loosen|soften|shorten|lower|"
    r"reduc|replac|narrow|gut|mute|silenc|mark|xfail)\w*\b"
    r"(?=.{0,160}?\b(?:tests?|assert\w*|expectations?|tolerances?|coverage)\b)"
    r"|add\w*\b(?=.{0,100}?\b(?:skip\w*|ignore|xfail\w*|todo)\b)"
    r")(?!.{0,160}?\b(?:new\s+tests?|missing\s+tests?|tests?\s+for\s+(?:new|your)|fine|allowed|ok|okay)\b)",
    re.IGNORECASE,
)

AGT002 = (
    # Tests that cannot fail, however the sentence puts it: "NEVER write tests that, because they mock
    # everything, will never fail", "Don't add tests that pass regardless of the code".
    _NO + r"\s+(?:\w+\s+){0,2}?(?:write|add|create|keep|commit|ship)\w*\s+(?:\w+\s+){0,2}?tests?\s+"
    r"(?:that|which)\b.{0,160}?\b(?:(?:will|would|can|could)\s+never\s+fail|never\s+fails?|always\s+pass(?:es)?|"
    r"can(?:not|'t|\s+not)\s+(?:possibly\s+)?fail|pass(?:es)?\s+(?:regardless|no\s+matter|by\s+|even\s+"
    r"(?:if|when|without)|without\s+))",
    # Tests that restate the code they test: "A test that asserts the implementation back at itself",
    # "assert on outcomes rather than restating the implementation".
    # (Not the layout: "Test files mirror the implementation's folders", "copy the implementation layout".)
    r"\btests?\b.*?\b(?:assert\w*|restat\w*|re-?implement\w*|duplicat\w*|cop(?:y|ies|ying))\s+"
    r"(?:the\s+)?(?:implementation|(?:code|function|method|class|module|logic|unit)\s+(?:under|being)\s+"
    r"test(?:ed)?)(?:\s+back\s+at\s+itself)?\b(?!'|\s+(?:layout|structure|director\w*|folders?|tree|files?|"
    r"modules?|hierarch\w*|naming|paths?|packages?))",
    # Tests able to fail: "Tests must fail when the behaviour they cover breaks".
    r"\btests?\s+(?:must|should|need\s+to|have\s+to|has\s+to)\s+(?:be\s+able\s+to\s+)?fail\s+(?:if|when|"
    r"whenever|as\s+soon\s+as)\s+(?:the\s+)?(?:code|behaviou?r|implementation|logic|feature|functionality|"
    r"thing)\b",
    # Tests that fail when the code they cover breaks: "verify the test would fail if that code path were
    # removed".
    r"\b(?:verify|check|confirm|ensure|make\s+sure)\s+(?:that\s+)?(?:the|each|every|your|a)\s+(?:new\s+)?tests?\s+"
    r"(?:would|will|does|can|could)\s+fail\s+(?:if|when)\b.{0,60}?\b(?:removed|reverted|broken|deleted|wrong)\b",
    # A test worth having fails when what it covers breaks: "A test is only useful if it would fail when the
    # intended behavior regresses".
    r"\btests?\b.{0,60}?\b(?:useful|valuable|worth\w*|meaningful|good)\b.{0,30}?\bif\s+it\s+(?:would|will|can|"
    r"could)\s+fail\s+(?:when|if)\b",
    # An assertion that cannot fail: "the comparison can never fail", "an assertion that always passes".
    r"\b(?:assert\w*|comparisons?|checks?)\s+(?:that\s+|which\s+)?(?:can|could|will|would)\s+never\s+fail\b",
    # Tests that pass without checking: "Writing tests that pass but don't verify important behavior".
    r"\btests?\s+(?:that|which)\s+pass(?:es)?\s+but\s+(?:do(?:es)?\s*n[o']t|never|fail\s+to)\s+(?:actually\s+)?"
    r"(?:verify|check|assert|test|exercise|cover)\b",
    # Tests of running only: "Do not test only that code executes without raising".
    _NO + r"\s+(?:\w+\s+){0,2}?test\s+(?:\w+\s+){0,2}?(?:only\s+)?that\s+(?:\S+\s+){0,6}?(?:runs?|executes?|"
    r"works?|completes?)\s+without\s+(?:raising|errors?|exceptions?|crashing|failing)\b",
    # Round six: tests that must catch what is wrong: "Tests MUST fail when bugs are present", "Tests MUST
    # detect errors in code".
    r"\btests?\s+(?:must|should|need\s+to|have\s+to)\s+fail\s+(?:if|when|whenever)\b.{0,40}?\b(?:bugs?|"
    r"wrong|broken|incorrect|errors?|faulty|buggy)\b",
    r"\btests?\s+(?:must|should|need\s+to|have\s+to)\s+(?:detect|catch|reveal|expose)\s+(?:\w+\s+){0,2}?"
    r"(?:errors?|bugs?|regressions?|mistakes?|defects?)\b",
    # Such tests named as a fault, in a list of what not to do: "Creating tests that pass regardless of
    # implementation correctness", "Writing tests that cannot detect regressions".
    r"\btests?\s+(?:that|which)\s+(?:pass(?:es)?\s+regardless\s+of|can(?:not|'t|\s+not)\s+(?:detect|catch)|"
    r"never\s+(?:detect|catch))\b",
    # Placeholder tests: "Do not add placeholder tests", "No dummy assertions".
    _NO + r"\s+(?:\w+\s+){0,2}?(?:(?:placeholder|dummy|fake|empty|trivial|no-?op|vacuous|meaningless|"
    r"smoke-only)\s+(?:tests?|assertions?|asserts?))\b",
)

# --- regression tests name what they guard (AGT001) ------------------------------------------------------

AGT001 = (
    # A regression test tied to its issue by a reference, a link or its name: "Regression tests for bug fixes
    # go in tests/issues/ named after the issue number", "Regression tests: add a `@see` comment with the
    # issue URL".
    r"\bregression\s+tests?\b.{0,120}?\b(?P<act>named\s+(?:after|for)|(?:add|include|put|give|leave)\w*\s+"
    r"(?:\S+\s+){0,3}?(?:comments?|links?|references?))\b.{0,40}?\b(?:the\s+)?(?:issue|PR|pull\s+request|"
    r"commit|ticket|bug)\s+(?:numbers?|URLs?|links?|ids?|#)",
)

# --- tests that fail without the fix (AGT005, checked with `bot check --verify-tests`) -------------------

FAIL_WITHOUT_FIX = (
    # "a regression test that fails without the fix", "tests must fail before the fix", "fails before and
    # passes after", "Must fail without change, pass with it".
    r"\bfails?\s+before\s+and\s+pass(?:es)?\s+after\b",
    r"\b(?:fail(?:s|ing)?)\s+(?:\w+\s+){0,4}?(?:without|before|prior\s+to)\s+(?:(?:the|your|this|a)\s+)?"
    r"(?:\w+\s+)?(?:fix|fixes|change|changes|patch|code\s+change|bug\s*fix|implementation|after)\b",
    # "Write a failing test first", "add or update a failing unit test that captures the regression",
    # "Reproduce the bug with the smallest failing test you can".
    r"\b(?:write|add|create|start\s+with|begin\s+with|reproduce|update|land|commit)\w*\b.{0,80}?\bfailing\s+"
    r"(?:\(?\w+\)?\s+){0,2}?tests?\b",
    # "Bug fixes must include a failing test first".
    r"\b(?:include|ship|provide)\w*\s+(?:with\s+)?(?:a|an|the)\s+failing\s+(?:\w+\s+)?tests?\b",
    # "ensure it fails", "watch it fail", "confirm the new test fails before the fix", "Run the test to
    # confirm it fails".
    r"\b(?:watch|see|confirm|ensure|verify|check|make\s+sure|prove)\w*\s+(?:that\s+)?(?:it|they|the\s+"
    r"(?:\w+\s+){0,2}?tests?)\s+(?:\w+\s+)?fails?\b",
    # "Reproduce the bug in a test before fixing it", "write a test that reproduces the issue first".
    r"\breproduc\w*\s+(?:the\s+|a\s+)?(?:bug|issue|problem|regression|defect)\s+(?:in|with)\s+(?:a\s+)?"
    r"(?:\w+\s+)?tests?\s+(?:first|before)\b",
    r"\b(?:write|add|create)\w*\s+(?:a\s+)?(?:\w+\s+)?tests?\s+(?:that|which)\s+reproduces?\s+(?:the\s+)?"
    r"(?:bug|issue|problem|regression|defect)\b.{0,40}?\b(?:first|before)\b",
    # Red before green: "see the test go red before you fix it".
    r"\btests?\s+(?:\w+\s+)?(?:goes?|go|is|turns?)\s+red\s+(?:before|first|without)\b",
    # "FAIL on the unpatched code", "fails against the old build".
    r"\b(?:fails?)\s+(?:on|against|with)\s+(?:(?:the|an?)\s+)?(?:unpatched|unfixed|old|original|previous|broken|"
    r"buggy|current\s+main)\b",
    # "your test is NOT VALID if it passes with the old build".
    r"\b(?:not\s+valid|invalid|worthless|useless|proves\s+nothing)\b.*?\bpass(?:es)?\s+(?:on|with|against)\s+"
    r"(?:the\s+)?(?:old|unpatched|unfixed|original|previous|broken)\b",
    # "adds tests to demonstrate the bug, then fix the bug in a follow-up commit".
    r"\btests?\b.{0,80}?\b(?:demonstrate|expose|reproduce)s?\s+(?:the\s+|a\s+)?(?:bug|issue|regression|"
    r"failure|defect)\b.*?\bthen\b",
    # Test-driven development asks for the failing test first: "Use test-driven development for bug fixes",
    # "Follow TDD"; and "no implementation code without a failing test".
    r"(?:^\W*|\b(?:always|must|should|please)\s+)(?:use|practi[cs]e|follow|apply)\s+(?:strict\s+)?"
    r"(?:test[-\s]driven\s+development|TDD|(?:the\s+|a\s+)?red[-\s/]green(?:[-\s/]refactor)?)\b",
    # "observe the intended red result before production code", "the test is watched failing", "see red".
    r"\b(?:observe|see|watch)\w*\s+(?:the\s+)?(?:\w+\s+){0,2}?red\b|\bwatched\s+failing\b",
    r"\b(?:without|ahead\s+of|before)\s+(?:first\s+)?(?:writing\s+)?(?:a|its|the)\s+failing\s+tests?\b",
    # "A regression test should fail for the original bug".
    r"\b(?:regression\s+)?tests?\s+(?:should|must|needs?\s+to|has\s+to|have\s+to)\s+fail\s+(?:for|on|against|"
    r"with)\s+(?:the\s+)?(?:original|reported|actual|unfixed|old)\s+(?:bug|issue|code|version|behaviou?r)\b",
    # "Write behavioral tests that reproduce the bug", "A fix must ship with a regression test that
    # reproduces the actual reported bug".
    r"\btests?\s+(?:that|which)\s+reproduces?\s+(?:the\s+)?(?:\w+\s+){0,2}?(?:bug|issue|problem|regression|"
    r"defect)\b",
    # The test before the fix, as a step: "Write test first (RED) - test should FAIL", "Bug fixes ship a
    # regression test first".
    r"\b(?:write|add)\w*\s+(?:(?:a|the)\s+)?(?:\w+\s+)?tests?\s+first\b.{0,40}?\b(?:red|fail\w*)\b",
    r"\b(?:bug\s*)?fix(?:es)?\s+(?:must\s+|should\s+)?(?:ship|land|come|start)s?\s+(?:with\s+)?(?:a|the)\s+"
    r"(?:\w+\s+)?(?:regression\s+)?tests?\s+first\b",
)

# A word every phrasing of a family holds: a sentence without it is not tried against the family (most
# sentences of a guide speak of neither tests nor branches).
GATES: dict[str, str] = {
    "AGT001": r"regression",
    "AGT002": r"test|assert",
    "AGT003": r"test|assert|expect|checks",
    "AGT004": r"branch|base|default|mainline|integration|PR|pull|merge|target|submit|main|master|dev|trunk|"
    r"next|staging|canary|unstable",
    "AGT005": r"fail|red\b|reproduc|demonstrat|expos|valid|worthless|useless|proves|test[-\s]driven|TDD|"
    r"first",
}
# Rule code -> the family phrasings that turn it on, beside its own recognisers.
TURNS_ON: dict[str, tuple[str, ...]] = {
    "AGT001": AGT001,
    "AGT002": AGT002,
    "AGT003": AGT003,
    "AGT004": TRUNK,
    "AGT005": FAIL_WITHOUT_FIX,
}
# Families the reader understands though no rule checks them yet: name -> phrasings (none at present: the
# last, "tests fail without the fix", became AGT005).
KNOWN: dict[str, tuple[str, ...]] = {}
