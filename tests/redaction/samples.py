"""Synthetic credentials of every kind, and near-misses that must stay.

Every value is generated here from a seeded random source, by concatenating a
provider's prefix with random characters of the right alphabet and length: none is a
real credential, and none appears literally in the repository for a scanner to flag.
"""

from __future__ import annotations

import base64
import json
import random
import string

import attrs

B62 = string.ascii_letters + string.digits
B64 = B62 + "+/"
B64URL = B62 + "-_"
HEX = "0123456789abcdef"
UPPER36 = string.ascii_uppercase + string.digits


@attrs.frozen
class Positive:
    """`text` holds `secret`, which must become `[redacted <kind>]`."""

    kind: str
    text: str
    secret: str

    @property
    def id(self) -> str:
        return f"{self.kind}:{self.text[:24]}"


@attrs.frozen
class NearMiss:
    """`text` holds no credential and must come back unchanged."""

    label: str
    text: str


class _Gen:
    def __init__(self, seed: int) -> None:
        self.random = random.Random(seed)

    def of(self, alphabet: str, size: int) -> str:
        return "".join(self.random.choice(alphabet) for _ in range(size))


def _b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


def jwt(gen: _Gen, payload: dict[str, object] | None = None) -> str:
    header = _b64url(json.dumps({"alg": "HS256", "typ": "JWT"}).encode())
    body = _b64url(json.dumps(payload or {"sub": gen.of(HEX, 12), "iat": 1700000000}).encode())
    return f"{header}.{body}.{gen.of(B64URL, 43)}"


def pem(gen: _Gen, label: str = "RSA PRIVATE KEY", lines: int = 6, *, end: bool = True) -> str:
    body = "\n".join(gen.of(B64, 64) for _ in range(lines))
    block = f"-----BEGIN {label}-----\n" + "MIIE" + body
    return block + (f"\n-----END {label}-----" if end else "")


def _secret_values(gen: _Gen) -> list[tuple[str, str]]:
    """(kind, value) pairs for the shape-detected kinds."""
    g = gen.of
    return [
        ("openai-api-key", "sk-" + "proj-" + g(B64URL, 74) + "T3Blbk" + "FJ" + g(B64URL, 74)),
        ("openai-api-key", "sk-" + "svcacct-" + g(B64URL, 120)),
        ("openai-api-key", "sk-" + g(B62, 20) + "T3Blbk" + "FJ" + g(B62, 20)),
        ("anthropic-api-key", "sk-" + "ant-api03-" + g(B64URL, 93) + "AA"),
        ("anthropic-api-key", "sk-" + "ant-admin01-" + g(B64URL, 93) + "AA"),
        ("openrouter-api-key", "sk-" + "or-v1-" + g(HEX, 64)),
        ("api-key", "sk-" + g(HEX, 32)),
        ("stripe-secret-key", "sk_" + "live_" + g(B62, 99)),
        ("stripe-secret-key", "sk_" + "test_" + g(B62, 24)),
        ("stripe-secret-key", "rk_" + "live_" + g(B62, 24)),
        ("stripe-webhook-secret", "whsec_" + g(B62, 32)),
        ("github-token", "gh" + "p_" + g(B62, 36)),
        ("github-token", "gh" + "s_" + g(B62, 36)),
        ("github-token", "github_" + "pat_" + g(B62, 22) + "_" + g(B62, 59)),
        ("gitlab-token", "gl" + "pat-" + g(B64URL, 20)),
        (
            "slack-token",
            "xo" + "xb-" + g(string.digits, 12) + "-" + g(string.digits, 13) + "-" + g(B62, 24),
        ),
        (
            "slack-token",
            "xo" + "xp-" + g(string.digits, 12) + "-" + g(string.digits, 12) + "-" + g(HEX, 32),
        ),
        ("npm-token", "npm" + "_" + g(B62, 36)),
        ("pypi-token", "pypi-" + "AgEIcHlwaS5vcmc" + g(B64URL, 70)),
        ("huggingface-token", "hf" + "_" + g(string.ascii_letters, 34)),
        ("google-api-key", "AI" + "za" + g(B64URL, 35)),
        ("google-oauth-secret", "GOCSPX" + "-" + g(B64URL, 28)),
        ("google-oauth-token", "ya" + "29." + g(B64URL, 120)),
        ("aws-access-key-id", "AK" + "IA" + g(UPPER36, 16)),
        ("aws-access-key-id", "AS" + "IA" + g(UPPER36, 16)),
        ("aws-session-token", "IQoJb3JpZ2luX2Vj" + g(B64, 300)),
        ("jwt", jwt(gen)),
        ("jwt", jwt(gen, {"role": "service_role", "iss": "supabase"})),
        ("sendgrid-api-key", "SG" + "." + g(B64URL, 22) + "." + g(B64URL, 43)),
        ("twilio-api-key", "SK" + g(HEX, 32)),
        ("mailgun-api-key", "key-" + g(HEX, 32)),
        ("shopify-token", "shp" + "at_" + g(HEX, 32)),
        ("digitalocean-token", "do" + "p_v1_" + g(HEX, 64)),
        ("linear-api-key", "lin" + "_api_" + g(B62, 40)),
        ("notion-token", "nt" + "n_" + g(B62, 46)),
        ("replicate-token", "r8" + "_" + g(B62, 37)),
        ("groq-api-key", "gs" + "k_" + g(B62, 52)),
        ("xai-api-key", "xa" + "i-" + g(B62, 80)),
        ("perplexity-api-key", "pp" + "lx-" + g(B62, 48)),
        ("databricks-token", "da" + "pi" + g(HEX, 32)),
        ("postman-api-key", "PM" + "AK-" + g(HEX, 24) + "-" + g(HEX, 34)),
        ("supabase-token", "sb" + "p_" + g(HEX, 40)),
        ("figma-token", "fi" + "gd_" + g(B64URL, 40)),
        ("heroku-api-key", "HR" + "KU-" + g(B64URL, 60)),
        ("doppler-token", "dp" + ".pt." + g(B62, 43)),
        ("square-token", "sq0" + "atp-" + g(B64URL, 22)),
        ("age-secret-key", "AGE-" + "SECRET-KEY-1" + g(UPPER36, 58)),
    ]


CONTEXTS = (
    "Here is my key: {secret} please use it",
    "export TOKEN={secret}",
    '{{"value": "{secret}"}}',
    "curl https://api.example.com -d key={secret}&x=1",
    "`{secret}`",
)


def positives(seed: int = 7) -> list[Positive]:
    gen = _Gen(seed)
    g = gen.of
    samples = [
        Positive(kind, CONTEXTS[index % len(CONTEXTS)].format(secret=value), value)
        for index, (kind, value) in enumerate(_secret_values(gen))
    ]
    aws_secret = g(B64, 39) + "Q"
    hook = "T" + g(UPPER36, 8) + "/B" + g(UPPER36, 10) + "/" + g(B62, 24)
    discord_hook = g(string.digits, 18) + "/" + g(B64URL, 68)
    basic = base64.b64encode(f"deploy:{g(B62, 14)}".encode()).decode()
    named = [
        ("aws-secret-key", f"AWS_SECRET_ACCESS_KEY={aws_secret}", aws_secret),
        ("aws-secret-key", f"AKIA{g(UPPER36, 16)},{aws_secret}\nuser,console", aws_secret),
        ("aws-secret-key", f'aws_secret_access_key = "{aws_secret}"', aws_secret),
        ("slack-webhook", f"https://hooks.slack.com/services/{hook}", hook),
        ("telegram-bot-token", f"bot {g(string.digits, 10)}:{(p := 'AA' + g(B64URL, 33))}", p),
        ("discord-webhook", f"https://discord.com/api/webhooks/{discord_hook}", discord_hook),
        ("private-key", "key:\n" + (k := pem(gen)) + "\nthanks", k),
        ("private-key", (k := pem(gen, "OPENSSH PRIVATE KEY")), k),
        ("private-key", (k := pem(gen, "EC PRIVATE KEY", 3)), k),
        ("private-key", (k := pem(gen, "PGP PRIVATE KEY BLOCK", 4)), k),
        ("private-key", "cut off: " + (k := pem(gen, "PRIVATE KEY", 5, end=False)), k),
        (
            "private-key",
            '{"private_key": "' + (k := pem(gen, "PRIVATE KEY").replace("\n", "\\n")) + '\\n"}',
            k,
        ),
        ("password", f"postgres://admin:{(p := g(B62, 16))}@db.example.com:5432/app", p),
        ("password", f"mongodb+srv://app:{(p := g(B62, 12))}@cluster0.example.net/db", p),
        ("password", f"redis://:{(p := g(B62, 20))}@cache.internal:6379/0", p),
        ("password", f"DB_PASSWORD={(p := g(B62, 14))}", p),
        ("password", f'  password: "{(p := g(B62 + "!@#", 12))}"', p),
        ("password", f"password: {(p := 'Winter' + g(string.digits, 4) + '!')}", p),
        ("password", f'{{"user": "ci", "password": "{(p := g(B62, 10))}"}}', p),
        ("password", f'conn = "Server=db;User Id=sa;Password={(p := g(B62, 12))};"', p),
        ("password", f"psql --password {(p := g(B62, 11))} app", p),
        ("password", f"curl -u admin:{(p := g(B62, 13))} https://ci.example.com", p),
        ("password", f"machine api.example.com login bot password {(p := g(B62, 15))}", p),
        ("password", f"<password>{(p := g(B62, 12))}</password>", p),
        ("password", f"The password is {(p := 'Tr0ub4dor' + g(string.digits, 3))} for staging", p),
        ("password", f'{{\\"password\\": \\"{(p := g(B62, 12))}\\"}}', p),
        ("api-key", f'export API_KEY="{(p := g(HEX, 32))}"', p),
        ("api-key", f"const apiKey = '{(p := g(B62, 28))}';", p),
        ("api-key", f"x-api-key: {(p := g(B62, 30))}", p),
        ("api-key", f"AccountKey={(p := g(B64, 86) + '==')};EndpointSuffix=x", p),
        ("secret", f'client_secret: "{(p := g(B64URL, 32))}"', p),
        ("secret", f"SECRET_KEY = '{(p := g(B62 + '!@#$%^&*(-_=+)', 50))}'", p),
        ("secret", f"JWT_SECRET={(p := g(B62, 40))}", p),
        ("token", f'token = "{(p := g(HEX, 40))}"', p),
        ("token", f"//registry.example.com/:_authToken={(p := g(B62, 36))}", p),
        ("authorization", f'curl -H "Authorization: Bearer {(p := g(B62, 40))}" url', p),
        ("authorization", f"Authorization: Basic {(p := basic)}", p),
        ("authorization", f"use the header Bearer {(p := g(B62, 32))} for calls", p),
        ("authorization", f"-H 'Authorization: token {(p := g(HEX, 40))}'", p),
        ("cookie", f"Cookie: session={(p := g(B64URL, 40))}; theme=dark", p),
        ("credential", f'{{"credentials": "{(p := g(B64URL, 32))}"}}', p),
        ("atlassian-token", f"ATLASSIAN={(p := 'ATATT3' + g(B64URL, 186))}", p),
    ]
    samples += [Positive(kind, text, secret) for kind, text, secret in named]
    return samples


def near_misses(seed: int = 11) -> list[NearMiss]:
    gen = _Gen(seed)
    g = gen.of
    image = base64.b64encode(bytes(gen.random.randrange(256) for _ in range(600))).decode()
    texts = {
        "uuid": f"chat 3f2b8c1e-9d4a-4b6f-a1c2-{g(HEX, 12)} was archived",
        "uuid upper": "ID 6F9619FF-8B86-D011-B42D-00C04FC964FF",
        "git sha": f"fixed in commit {g(HEX, 40)}",
        "short sha": f"see {g(HEX, 7)} and {g(HEX, 12)}",
        "sha256 hex": f"sha256 {g(HEX, 64)}",
        "docker digest": f"image@sha256:{g(HEX, 64)}",
        "hex colours": "colors: #ff8800, #FFF, #1e293b and rgb(0 0 0 / 50%)",
        "base64 image": f"![logo](data:image/png;base64,{image})",
        "sri hash": f'integrity="sha512-{g(B64, 86)}=="',
        "long identifier": "getUserAuthenticationTokenFromLocalStorageOrRefresh()",
        "snake identifier": "refresh_access_token_if_expired_and_retry_request",
        "password prose": "The password must be at least 12 characters long.",
        "password reset prose": "Users who forget their password get a reset link by email.",
        "token prose": "The token is refreshed every 5 minutes.",
        "secret prose": "The secret is base64-encoded before storage.",
        "bearer prose": "We use Bearer tokens and Basic authentication for the admin API.",
        "password field": '<input type="password" name="password" placeholder="Password" />',
        "env reference": 'password = os.environ["DB_PASSWORD"]',
        "typed field": "interface Login { email: string; password: string; }",
        "zod field": "password: z.string().min(8),",
        "process env": "apiKey: process.env.OPENAI_API_KEY,",
        "template header": "headers: { Authorization: `Bearer ${token}` }",
        "header from variable": "'Authorization': 'Bearer ' + token",
        "request token": "token = request.headers.get('X-Token')",
        "kwargs pass-through": "connect(user=user, password=password, host=host)",
        "max tokens": "max_tokens=1024, temperature=0.2",
        "password policy": "password_min_length = 12",
        "tokenizer": "tokenizer = AutoTokenizer.from_pretrained(name)",
        "sklearn": "pip install sk-learn-extras-toolkit-preview",
        "task slug": "branch task-refactor-session-handling-v2",
        "ssh public key": f"ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI{g(B64, 43)} me@laptop",
        "stripe publishable": "pk_" + "live_" + g(B62, 24),
        "url without password": "https://deploy@example.com/r.git and git@github.com:org/r.git",
        "email": "mail ops.team+alerts@example.co.uk about it",
        "semver and dates": "v2.14.0-rc.1 released 2024-05-01T12:30:00Z",
        "file paths": "src/components/auth/SessionProvider.tsx and app/routes/billing.tsx",
        "not a jwt": "eyJ" + "NotReallyAToken" + "." + "justDotted" + "." + "words",
        "placeholder key": "OPENAI_API_KEY=your-api-key-here",
        "env template": "DATABASE_URL=${DATABASE_URL}",
        "masked password": 'password="********"',
        "placeholder token": 'token: "<your token>"',
        "token generation": "token = secrets.token_hex(16)",
        "pwd directory": "PWD=/home/dev/project",
        "docker user": "docker run -u 1000:1000 image",
        "git upstream": "git push -u origin main",
        "i18n label": '"forgotPassword": "Forgot your password?"',
        "keyboard words": "the monkey used the keyboard; a secretary kept the passport",
        "bypass flag": "bypass = true",
        "compass": "compass: north",
        "ipv6 and mac": "fe80::1ff:fe23:4567:890a and 00:1B:44:11:3A:B7",
        "basic word": "Basic JavaScript knowledge is enough for this.",
        "cron": "schedule: '*/15 * * * *'",
        "npm scoped": "@types/node and @tanstack/react-query@5.0.0",
        "lockfile resolved": f"resolved https://registry.npmjs.org/zod/-/zod-3.2.tgz#{g(HEX, 8)}",
        "css variable": "--secret-panel-bg: #333; --token-gap: 4px;",
        "google short": "AIza is the start of a Google key",
        "aws-like upper": "STATUS_AKIA_UNRELATED_CONSTANT_NAME",
        "long base64 no context": f"blob {g(B64, 40)} in a fixture",
    }
    return [NearMiss(label, text) for label, text in texts.items()]


def kinds(samples: list[Positive]) -> set[str]:
    return {sample.kind for sample in samples}
