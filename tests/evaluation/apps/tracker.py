"""Fieldnotes: a project tracker for small teams. Guest access, notifications (changed
later), the Slack integration, exports, real-time editing, board limits, the trash,
keyboard shortcuts and a pilot customer. Many decisions here are the user's answers to
the assistant's questions."""

from __future__ import annotations

from tests.evaluation.corpus import A, App, Chat, Q, S, U, by_day, error, fillers, sql, think, write

GUESTS = Chat(
    "guests",
    "Clients in workspaces",
    "2024-01-09",
    (
        U("Agencies want to invite their clients into a project to follow progress."),
        A(
            "We can add a guest role: a guest belongs to one or more projects, not the whole "
            "workspace, and doesn't count as a paid seat. A few questions first. Can guests "
            "comment on tasks, or only view them?"
        ),
        U("Comment yes, but they can't change status or assignees.", "guest-comment"),
        A("Should guests see archived projects?"),
        U("No, hide archived stuff from guests completely.", "guest-archived"),
        A("And internal comments, the team's discussions on a task?"),
        U(
            "Let the team mark a comment as internal, guests never see those.",
            "guest-internal",
        ),
        A(
            write("src/server/permissions/guest.ts", "guest role")
            + "\n"
            + sql(
                "guest memberships",
                "CREATE TABLE project_guests (project_id int, user_id int, "
                "PRIMARY KEY (project_id, user_id));",
            )
            + "\nGuests are in."
        ),
        U("Guests shouldn't pay right?"),
        A("Right, guests are free and unlimited on every plan.", "guest-free"),
    ),
)

NOTIFY = Chat(
    "notifications",
    "Notifications",
    "2024-01-23",
    (
        U("People miss when they're assigned something."),
        A(
            "Notifications on assignment, mention, due date tomorrow and status change of "
            "tasks you follow. Delivered in the app (the bell), and by email?"
        ),
        U("Email right away for every one of them, people live in their inbox."),
        A(
            "Notifications: every event sends an email immediately (through Postmark) as well "
            "as appearing in the bell.",
            "notify-v1",
        ),
        U("ok"),
        A(write("src/server/notify/email.ts", "Postmark emails")),
    ),
)

SLACK = Chat(
    "slack",
    "Slack",
    "2024-02-06",
    (
        U("Half our customers asked for Slack."),
        A(
            "A Slack app could (a) post task updates into a channel chosen per project, "
            "(b) let people create a task from a message with a shortcut, and (c) unfurl "
            "task links. Which of these first?"
        ),
        U("Posting updates to a channel, and unfurls. Creating tasks later.", "slack-scope"),
        A(
            "The Slack app uses OAuth v2 with the chat:write and links:read scopes; each "
            "project can pick one channel for its updates.\n"
            + write("src/server/integrations/slack.ts", "Slack OAuth and posting"),
            "slack-scopes",
        ),
        U("The install fails for one customer"),
        A(
            error("slack_oauth_error: invalid_team_for_non_distributed_app")
            + " The app wasn't enabled for public distribution, so only our own workspace "
            "could install it. Distribution is now activated in the Slack app settings.",
            "slack-distribution",
        ),
    ),
)

EXPORT = Chat(
    "export",
    "Export",
    "2024-02-20",
    (
        U("A customer wants to get all their data out before their annual review."),
        A(
            "A workspace export: CSV for tasks (one row per task, with custom fields as "
            "columns) and a JSON file with everything including comments and history. "
            "Attachments as a separate zip?"
        ),
        U("Yes separate zip, and email the link when it's ready.", "export-attachments"),
        A(
            "Exports run as a background job; the download link is emailed and expires after "
            "7 days.",
            "export-format",
        ),
    ),
)

REALTIME = Chat(
    "realtime",
    "Live updates",
    "2024-03-04",
    (
        U("When two people look at the same board they don't see each other's changes."),
        A(
            think("Liveblocks vs Supabase Realtime vs own websockets.")
            + "Options: Liveblocks (presence + CRDT storage, paid per connection), Supabase "
            "Realtime (Postgres changes broadcast over websockets, included in our plan), "
            "or our own websocket server."
        ),
        U("We're on Supabase already"),
        A(
            "Board updates use Supabase Realtime: each board subscribes to changes on its "
            "tasks, and presence shows who else is viewing. Conflicts on the same field are "
            "last write wins, which is fine for status and assignee changes.",
            "realtime-choice",
        ),
        U("What about two people typing in the same task description?"),
        A(
            "That would need a CRDT (Yjs). For now the description locks while someone edits "
            "it, with their avatar shown.",
            "description-lock",
        ),
    ),
)

WIP = Chat(
    "wip",
    "Board columns",
    "2024-03-18",
    (
        U("The team lead at Halvorsen Architects wants to limit work in progress."),
        A(
            "We can add a limit per board column. When a column is full, should moving "
            "another card in be blocked, or allowed with a warning?"
        ),
        U(
            "A warning, the column turns red. Blocking is too annoying.",
            "wip-warning",
        ),
        A(write("src/components/board/Column.tsx", "WIP limit warning")),
        U("Also they want swimlanes by assignee"),
        A("Swimlanes by assignee or by label are now a board view option.", "swimlanes"),
    ),
)

TRASH = Chat(
    "trash",
    "Deleting projects",
    "2024-04-02",
    (
        U("Someone deleted a whole project by accident yesterday and panicked."),
        A(
            "Deleted projects and tasks go to a trash and can be restored. How long should "
            "they stay there?"
        ),
        U("30 days, then gone for good.", "trash-days"),
        A(
            "Deleted items stay in the trash for 30 days and are purged by a nightly job; "
            "only workspace admins can restore a project.\n"
            + write("src/server/jobs/purge-trash.ts", "purge after 30 days")
        ),
    ),
)

SHORTCUTS = Chat(
    "shortcuts",
    "Keyboard",
    "2024-04-16",
    (
        U("Power users keep asking for keyboard shortcuts."),
        A(
            "Proposal: C creates a task, / focuses search, J/K move between tasks, E edits, "
            "A assigns to me, ? shows the list. Cmd+K opens a command palette.",
            "shortcuts",
        ),
        U("Great, but don't trigger them while typing in a field"),
        A("Shortcuts are ignored while focus is in an input, textarea or the editor."),
    ),
)

PILOT = Chat(
    "pilot",
    "Halvorsen pilot",
    "2024-04-29",
    (
        S(
            "Halvorsen pilot",
            "Halvorsen Architects (contact: Sigrid Halvorsen, 35 users) started a three-month "
            "pilot on 2 April. Agreed: a 40% discount for the first year if they convert, "
            "SSO with Microsoft Entra ID before the pilot ends, and their projects imported "
            "from Asana by us.",
            "pilot-terms",
        ),
        U("Sigrid says the Asana import missed the subtasks"),
        A(
            "The importer only read top-level tasks; subtasks are now imported as checklist "
            "items on their parent.\n" + write("src/server/import/asana.ts", "subtasks")
        ),
    ),
)

NOTIFY_CHANGE = Chat(
    "notifications-change",
    "Too many emails",
    "2024-05-13",
    (
        U(
            "Users are complaining about getting 40 emails a day from us. Some set filters "
            "and now miss everything."
        ),
        A(
            "Immediate email for every event doesn't scale. Should mentions stay immediate, "
            "with everything else batched?"
        ),
        U("Yes. Mentions right away, everything else in one email at 8am.", "notify-v2"),
        A(
            "Changed: mentions still email immediately; all other notifications are "
            "collected into a daily digest at 08:00 in each user's time zone.\n"
            + write("src/server/notify/digest.ts", "daily digest")
        ),
    ),
)

REQUESTS = (
    "The task modal is too narrow on big screens.",
    "Can we show the due date on the card?",
    "Drag and drop on the board is laggy with 200 tasks.",
    "Add filters for assignee and label.",
    "The project list should be sorted by last activity.",
    "Make the sidebar collapsible.",
    "Comments need markdown support.",
    "The avatar stack overflows when there are many people.",
    "Add a 'my tasks' page.",
    "Due dates show in the wrong format for American users.",
    "Time to fix the flicker when the board loads.",
    "Team members want to meet their deadlines, show overdue tasks in red.",
    "Let's go through the settings page, it has grown messy.",
    "The guest badge next to names is too loud.",
    "Notifications bell should show a count.",
    "The Slack icon in settings is the old logo.",
    "Export button should be in the project menu, not only in settings.",
    "Show who else is viewing the board in the header.",
    "The trash page needs a search box.",
    "Add a shortcut hint to the tooltip of the create button.",
    "Halvorsen asked for their logo on the login page.",
    "Comments from clients should have a different background.",
    "The digest email template looks broken in Outlook.",
    "Column headers should show how many cards they hold.",
)
REPLIES = (
    "Done, the board renders only the visible cards now.",
    "Added it and checked it with long titles.",
    "Fixed, the date format follows the user's locale.",
    "Updated the layout; it works from 1024px to 2560px.",
    "Done. The filter state lives in the URL so it can be shared.",
    "Changed the component; the flicker came from a loading state shown twice.",
    "Done; permissions are unchanged, it's only the display.",
    "Updated the email template and tested it in Outlook and Gmail.",
    "Added it, the count comes from the same query as the board.",
    "Fixed the icon and the settings copy.",
)
PATHS = (
    "src/components/board/Board.tsx",
    "src/components/TaskModal.tsx",
    "src/app/projects/page.tsx",
    "src/components/Sidebar.tsx",
    "src/app/my-tasks/page.tsx",
)

CHATS = by_day(
    GUESTS,
    NOTIFY,
    SLACK,
    EXPORT,
    REALTIME,
    WIP,
    TRASH,
    SHORTCUTS,
    PILOT,
    NOTIFY_CHANGE,
    *fillers("misc", 28, 41, ("2024-01-05", "2024-05-28"), REQUESTS, REPLIES, PATHS),
)

QUESTIONS = (
    Q(
        "trk-01",
        ("assistant_asks", "vocabulary"),
        "Can clients who are invited to a project write comments?",
        "guest comments permissions",
        ("guest-comment",),
    ),
    Q(
        "trk-02",
        ("assistant_asks",),
        "Do guests see archived projects?",
        "guests archived projects",
        ("guest-archived",),
    ),
    Q(
        "trk-03",
        ("assistant_asks", "vocabulary"),
        "Can we hide some comments from clients?",
        "hide comments from clients",
        ("guest-internal",),
    ),
    Q(
        "trk-04",
        ("superseded", "assistant_asks"),
        "How are notification emails sent now?",
        "notification emails",
        ("notify-v2",),
    ),
    Q(
        "trk-05",
        ("superseded", "when"),
        "When did we switch notifications to a daily digest?",
        "daily digest notifications",
        ("notify-v2",),
    ),
    Q(
        "trk-06",
        ("assistant_asks", "names"),
        "What does our Slack integration do?",
        "Slack integration features",
        ("slack-scope",),
    ),
    Q(
        "trk-07",
        ("identifier", "names"),
        "Why did a customer get invalid_team_for_non_distributed_app installing Slack?",
        "invalid_team_for_non_distributed_app",
        ("slack-distribution",),
    ),
    Q(
        "trk-08",
        ("vocabulary", "decision"),
        "How can a customer take all of their stuff with them if they leave?",
        "customer take data leave",
        ("export-format",),
    ),
    Q(
        "trk-09",
        ("assistant_asks", "fact"),
        "Are file attachments part of the export?",
        "export attachments",
        ("export-attachments",),
    ),
    Q(
        "trk-10",
        ("decision", "names"),
        "Why didn't we pick Liveblocks for live board updates?",
        "Liveblocks realtime board",
        ("realtime-choice",),
    ),
    Q(
        "trk-11",
        ("vocabulary",),
        "What happens if two people type in the same task at once?",
        "two people editing same task",
        ("description-lock",),
    ),
    Q(
        "trk-12",
        ("assistant_asks", "names"),
        "What did we do about limiting work in progress for Halvorsen?",
        "WIP limit column",
        ("wip-warning",),
    ),
    Q(
        "trk-13",
        ("vocabulary", "assistant_asks"),
        "Can someone get back a project they deleted by mistake?",
        "restore deleted project",
        ("trash-days",),
    ),
    Q(
        "trk-14",
        ("fact",),
        "Which key opens the command palette?",
        "command palette shortcut",
        ("shortcuts",),
    ),
    Q(
        "trk-15",
        ("names", "possessive"),
        "What discount did we promise Halvorsen Architects?",
        "Halvorsen discount",
        ("pilot-terms",),
    ),
    Q(
        "trk-16",
        ("when", "names"),
        "When did the Halvorsen pilot start?",
        "Halvorsen pilot start date",
        ("pilot-terms",),
    ),
    Q(
        "trk-17",
        ("names", "possessive"),
        "What's Sigrid's team using for single sign-on?",
        "Sigrid SSO",
        ("pilot-terms",),
    ),
    Q(
        "trk-18",
        ("multi_chat", "names"),
        "Everything we agreed with Halvorsen Architects",
        "Halvorsen Architects",
        ("pilot-terms", "wip-warning"),
    ),
    Q(
        "trk-19",
        ("multi_chat", "superseded"),
        "How did our email notification policy change since January?",
        "email notifications policy",
        ("notify-v1", "notify-v2"),
    ),
    Q(
        "trk-20",
        ("possessive", "fact"),
        "Guests don't take up a paid seat, do they?",
        "guests paid seat",
        ("guest-free",),
    ),
    Q(
        "trk-21",
        ("when",),
        "When did we add the trash for deleted projects?",
        "trash deleted projects",
        ("trash-days",),
    ),
    Q(
        "trk-22",
        ("fact",),
        "Can the board be split into rows per person?",
        "swimlanes assignee",
        ("swimlanes",),
    ),
    Q(
        "trk-23",
        ("names",),
        "Which email service sends our notification emails?",
        "email provider notifications",
        ("notify-v1",),
    ),
    Q(
        "trk-24",
        ("names",),
        "Who is our contact person at Halvorsen Architects?",
        "Halvorsen contact",
        ("pilot-terms",),
    ),
    Q(
        "trk-25",
        ("names", "possessive"),
        "Which tool did we import Halvorsen's projects from?",
        "Halvorsen import projects",
        ("pilot-terms",),
    ),
    Q(
        "trk-26",
        ("superseded",),
        "Does someone get an email straight away when they are mentioned?",
        "mention email immediately",
        ("notify-v2",),
    ),
    Q(
        "trk-27",
        ("when", "superseded"),
        "At what time does the daily summary email go out?",
        "daily digest time",
        ("notify-v2",),
    ),
    Q(
        "trk-28",
        ("names", "identifier"),
        "Which OAuth scopes does our Slack app ask for?",
        "Slack OAuth scopes",
        ("slack-scopes",),
    ),
    Q(
        "trk-29",
        ("fact",),
        "How long does the download link for an export work?",
        "export link expiry",
        ("export-format",),
    ),
    Q(
        "trk-30",
        ("vague",),
        "How long can a deleted project come back?",
        "deleted project come back",
        ("trash-days",),
        distractors=("misc-27",),
    ),
    Q(
        "trk-31",
        ("vague",),
        "What happens when two people type in the same task at once?",
        "two people type same task",
        ("description-lock",),
        distractors=("slack",),
    ),
    Q(
        "trk-32",
        ("unanswerable",),
        "Did we add time tracking to tasks?",
        "time tracking tasks",
        (),
        distractors=("misc-27",),
    ),
    Q(
        "trk-33",
        ("unanswerable",),
        "Is there a Gantt chart view of a project?",
        "Gantt chart project timeline",
        (),
    ),
    Q(
        "trk-34",
        ("unanswerable",),
        "Did we build an integration with Microsoft Teams?",
        "Microsoft Teams integration",
        (),
    ),
)

APP = App(4, "tracker", CHATS, QUESTIONS)
