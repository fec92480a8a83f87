import { pick } from './random';
import type { Category } from './questions';
import { NEWS_SOURCES, type NewsReport } from './information';

/**
 * The words of a news item: a kind of story that fits the market's category (a poll, an injury, a data
 * release, an official statement…), told in the market's own terms (its question), by a named source of documented
 * reliability (information.ts NEWS_SOURCES). The direction the source states is in the words, and may be wrong as often
 * as the source is; some items state none (mixed reports, whose lead tells both ways); the size is told by degrees
 * (slightly, plainly, sharply), roughly; the phrasing varies; the number never appears. A rule that counts favourable
 * words reads the mixed items at random, trusts a rumour as much as the record and every degree alike: reading this
 * news takes judgement.
 */

interface Story {
  /** Headline lead when the news favours YES, and when it favours NO. */
  up: string;
  down: string;
  /** The body's first sentence, favouring YES and NO. */
  upLead: string;
  downLead: string;
}

const STORIES: Record<Category, Story[]> = {
  Politics: [
    {
      up: 'Poll surge',
      down: 'Poll slump',
      upLead: 'A new poll shows support surging behind the outcome this market asks about',
      downLead: 'A new poll shows support for the outcome this market asks about slumping',
    },
    {
      up: 'Officials signal backing',
      down: 'Officials signal resistance',
      upLead: 'People close to the decision have come out in favour of it',
      downLead: 'People close to the decision are pushing back on it',
    },
    {
      up: 'Key endorsement',
      down: 'Party revolt',
      upLead: 'A key endorsement has landed and momentum is building',
      downLead: 'A revolt inside the party has stalled momentum',
    },
  ],
  Sports: [
    {
      up: 'Rival hit by injury',
      down: 'Injury blow',
      upLead: 'A key player on the other side has been ruled out with an injury',
      downLead: 'A key player has been ruled out with an injury',
    },
    {
      up: 'Form surge',
      down: 'Form slump',
      upLead: 'A run of strong results and upbeat training sessions point to a surge in form',
      downLead: 'A run of poor results and gloomy training sessions point to a slump in form',
    },
    {
      up: 'Star cleared to play',
      down: 'Starter suspended',
      upLead: 'A star player has been cleared to play after a fitness test',
      downLead: 'A starter has been handed a suspension by the league',
    },
  ],
  Crypto: [
    {
      up: 'Inflows surge',
      down: 'Outflows mount',
      upLead: 'Exchange and fund-flow data show a surge of inflows',
      downLead: 'Exchange and fund-flow data show outflows mounting as prices slump',
    },
    {
      up: 'Regulator eases stance',
      down: 'Regulator cracks down',
      upLead: 'A regulator has eased its stance',
      downLead: 'A regulator has launched a crackdown',
    },
  ],
  Economics: [
    {
      up: 'Data release surprises',
      down: 'Data release disappoints',
      upLead: 'The latest official data release comes in on the side of this outcome',
      downLead: 'The latest official data release comes in against this outcome',
    },
    {
      up: 'Officials hint at it',
      down: 'Officials push back',
      upLead: 'Central bank and treasury officials have hinted that it is on the way',
      downLead: 'Central bank and treasury officials have pushed back on it',
    },
  ],
  'Science & Tech': [
    {
      up: 'Leak points to early launch',
      down: 'Delays surface',
      upLead: 'A leaked internal roadmap points to an early launch',
      downLead: 'Technical delays and missed milestones have surfaced',
    },
    {
      up: 'Successful test',
      down: 'Test setback',
      upLead: 'A key test has succeeded',
      downLead: 'A key test has ended in a setback',
    },
  ],
  Culture: [
    {
      up: 'Buzz surges',
      down: 'Buzz fades',
      upLead: 'Early reviews and social media buzz surge',
      downLead: 'Early reviews disappoint and the buzz fades',
    },
    {
      up: 'Polls swing toward it',
      down: 'Polls swing away',
      upLead: 'The trade-press polls of voters have swung toward it',
      downLead: 'The trade-press polls of voters have swung away from it',
    },
  ],
  World: [
    {
      up: 'Talks make progress',
      down: 'Talks stall',
      upLead: 'Diplomats have made progress in talks',
      downLead: 'Talks have stalled',
    },
    {
      up: 'Allies line up',
      down: 'Allies balk',
      upLead: 'Key allies have lined up behind it',
      downLead: 'Key allies have balked',
    },
  ],
  Weather: [
    {
      up: 'Forecasts shift toward it',
      down: 'Forecasts shift away',
      upLead: 'The latest forecast model runs shift toward it',
      downLead: 'The latest forecast model runs shift away from it',
    },
    {
      up: 'Record readings',
      down: 'Cooler readings',
      upLead: 'Station readings so far run well ahead of the pace it needs',
      downLead: 'Station readings so far fall behind the pace it needs',
    },
  ],
  Business: [
    {
      up: 'Analyst upgrade',
      down: 'Analyst downgrade',
      upLead: 'A major analyst upgrade and strong channel checks lift expectations',
      downLead: 'A major analyst downgrade and weak channel checks cut expectations',
    },
    {
      up: 'Company goes ahead',
      down: 'Company backs away',
      upLead: 'The company is going ahead with the plans',
      downLead: 'The company has backed away from the plans',
    },
  ],
  Health: [
    {
      up: 'Encouraging data',
      down: 'Worrying data',
      upLead: 'New trial and surveillance data come in on the side of this outcome',
      downLead: 'New trial and surveillance data come in against this outcome',
    },
    {
      up: 'Regulator signals support',
      down: 'Regulator raises concerns',
      upLead: 'The regulator has signalled support',
      downLead: 'The regulator has raised concerns',
    },
  ],
};

/** The closing verdicts, by the direction stated and the strength (1 slight, 2 plain, 3 sharp), two phrasings each; Q is the question. */
export const VERDICTS: Record<'up' | 'down', Record<1 | 2 | 3, [string, string]>> = {
  up: {
    1: ['This may nudge up the chances that "Q" resolves YES.', 'If it holds, YES on "Q" looks a little more likely.'],
    2: ['This improves the chances that "Q" resolves YES.', 'It makes YES on "Q" more likely.'],
    3: ['This sharply raises the chances that "Q" resolves YES.', 'It makes YES on "Q" far more likely.'],
  },
  down: {
    1: ['This may slightly dent the chances that "Q" resolves YES.', 'If it holds, YES on "Q" looks a little less likely.'],
    2: ['This hurts the chances that "Q" resolves YES.', 'It makes YES on "Q" less likely.'],
    3: ['This sharply lowers the chances that "Q" resolves YES.', 'It makes YES on "Q" far less likely.'],
  },
};
export const UNCLEAR_VERDICTS: [string, string] = [
  'Whether this helps or hurts the chances that "Q" resolves YES is unclear.',
  'What it means for "Q" is unclear so far.',
];

const capital = (s: string) => s[0]!.toUpperCase() + s.slice(1);
const lower = (s: string) => s[0]!.toLowerCase() + s.slice(1);

/** Headline and body of one news event of a market, as its report tells it. */
export function newsText(question: string, category: Category, kindDraw: number, report: NewsReport): { headline: string; body: string } {
  const story = pick(STORIES[category], kindDraw);
  // A second choice from the same draw: which phrasing (independent of the story for any practical purpose).
  const variant = Math.floor(kindDraw * 9973) % 2;
  const source = NEWS_SOURCES[report.source]!.name;
  // One attribution a report, its source's: a story's lead states what happened, never who says so.
  const by = variant === 0 ? `, according to ${source}` : `, ${source} reports`;
  if (report.stated === 0) {
    const both = `${story.upLead}, yet ${lower(story.downLead)}`;
    return {
      headline: `Mixed reports: ${question}`,
      body: `${variant === 0 ? `Mixed news, according to ${source}: ${lower(both)}` : `${both}, ${source} reports`}. ${UNCLEAR_VERDICTS[variant]!.replace('Q', question)}`,
    };
  }
  const up = report.stated > 0;
  const lead = up ? story.upLead : story.downLead;
  return {
    headline: `${capital(up ? story.up : story.down)}: ${question}`,
    body: `${lead}${by}. ${VERDICTS[up ? 'up' : 'down'][report.strength][variant]!.replace('Q', question)}`,
  };
}
