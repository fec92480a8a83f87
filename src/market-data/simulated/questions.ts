import { pick } from './random';
import { CLOSES, isEurovisionFinal, isLeagueTableSunday, isNbaStandingsSunday, isOscars, isSuperBowl, nyCloseHourUtc, type CloseOn } from './venue-calendar';

/**
 * The question bank of the simulated venue: templates per category whose fill-ins come from the
 * market's own draws and whose dates come from its end date, so every question reads like one a
 * person would expect on a prediction market ("Will Bitcoin close above $120,000 on March 3, 2026?").
 */

export type Draw = (i: number) => number;

export interface When {
  /** "March 31, 2026" */
  date: string;
  /** "by March 31, 2026" */
  by: string;
  /** "on March 31, 2026" (with the hour for markets that last under two days) */
  on: string;
  month: string;
  year: number;
  quarter: number;
  monthIndex: number;
}

export interface Question {
  question: string;
  /** What makes it resolve YES, and from which source. */
  rule: string;
}

type Make = (d: Draw, w: When) => Question;
/**
 * A template: its text, and for a question decided on a dated occasion (an exchange's close, a data release, a central
 * bank's decision, a match day), the real calendar of that occasion (venue-calendar.ts): the market then ends at the
 * occasion's hour on one of its days, so its question's date is a day the thing it asks about happens.
 */
export type Template = Make & { closeOn?: CloseOn };

export { nyCloseHourUtc };
const on = (closeOn: CloseOn, make: Make): Template => Object.assign(make, { closeOn });

const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];

export function whenOf(end: Date, short: boolean): When {
  const date = `${MONTHS[end.getUTCMonth()]} ${end.getUTCDate()}, ${end.getUTCFullYear()}`;
  const hour = `${String(end.getUTCHours()).padStart(2, '0')}:00 UTC`;
  return {
    date,
    by: `by ${date}`,
    on: short ? `on ${date} at ${hour}` : `on ${date}`,
    month: MONTHS[end.getUTCMonth()]!,
    year: end.getUTCFullYear(),
    quarter: Math.floor(end.getUTCMonth() / 3) + 1,
    monthIndex: end.getUTCMonth(),
  };
}

// Thousands separators by hand: toLocaleString goes through ICU, which is slow for thousands of questions.
const num = (n: number): string => {
  const [int, frac] = String(n).split('.');
  return `${int!.replace(/\B(?=(\d{3})+(?!\d))/g, ',')}${frac ? `.${frac}` : ''}`;
};
const steps = (from: number, to: number, step: number): number[] => {
  const out: number[] = [];
  for (let v = from; v <= to + 1e-9; v += step) out.push(Math.round(v * 100) / 100);
  return out;
};
const rule = (yes: string, source: string): string => `Resolves YES if ${yes}; otherwise NO. Resolution source: ${source}.`;

const COUNTRIES = [
  'France',
  'Germany',
  'Japan',
  'Canada',
  'Brazil',
  'India',
  'the UK',
  'Italy',
  'Spain',
  'Australia',
  'Mexico',
  'South Korea',
  'Poland',
  'the Netherlands',
  'Argentina',
  'South Africa',
  'Turkey',
  'Indonesia',
  'Sweden',
  'Nigeria',
];
const BILLS = [
  'budget',
  'climate',
  'immigration reform',
  'data privacy',
  'housing',
  'pension reform',
  'AI safety',
  'minimum wage',
  'energy security',
  'digital services tax',
];
const US_STATES = [
  'Arizona',
  'Georgia',
  'Pennsylvania',
  'Michigan',
  'Wisconsin',
  'Nevada',
  'North Carolina',
  'Ohio',
  'Texas',
  'Florida',
  'Virginia',
  'New Jersey',
];
const POSTS = [
  'Secretary of Labor',
  'Secretary of Energy',
  'Attorney General',
  'Federal Reserve Governor',
  'Ambassador to Japan',
  'Director of the FBI',
  'Surgeon General',
  'Secretary of Commerce',
];
const CLUBS: Array<[string, string]> = [
  ['Arsenal', 'the Premier League'],
  ['Manchester City', 'the Premier League'],
  ['Liverpool', 'the Premier League'],
  ['Chelsea', 'the Premier League'],
  ['Real Madrid', 'La Liga'],
  ['Barcelona', 'La Liga'],
  ['Atletico Madrid', 'La Liga'],
  ['Bayern Munich', 'the Bundesliga'],
  ['Borussia Dortmund', 'the Bundesliga'],
  ['Inter Milan', 'Serie A'],
  ['Juventus', 'Serie A'],
  ['AC Milan', 'Serie A'],
  ['Napoli', 'Serie A'],
  ['PSG', 'Ligue 1'],
  ['Marseille', 'Ligue 1'],
];
const NBA = ['Celtics', 'Lakers', 'Nuggets', 'Warriors', 'Bucks', 'Knicks', 'Thunder', 'Heat', 'Mavericks', 'Timberwolves', '76ers', 'Suns'];
const NFL = ['Chiefs', 'Eagles', '49ers', 'Bills', 'Ravens', 'Lions', 'Cowboys', 'Packers', 'Bengals', 'Dolphins'];
const ALTCOINS = ['XRP', 'Cardano', 'Dogecoin', 'Avalanche', 'Litecoin', 'Polkadot', 'Chainlink'];
const STABLECOINS = ['USDT', 'USDC', 'DAI', 'FDUSD', 'USDe'];
const AI_LABS = ['OpenAI', 'Google DeepMind', 'Anthropic', 'Meta', 'Mistral', 'xAI', 'DeepSeek'];
const MISSIONS = ['Artemis II', 'Artemis III', 'the Dragonfly mission', 'the Roman Space Telescope'];
const FILMS = ['Starfall', 'The Last Orchard', 'Midnight Protocol', 'Blue Harbor', 'Iron Meridian', 'Paper Kingdoms', 'The Glass Coast', 'Northern Lights Run'];
const SHOWS = ['Harbor Lights', 'The Quiet Hours', 'Neon District', 'Small Town Saints', 'Cold Case Kitchen'];
const GAMES = ['Skyforge', 'Ashen Crown', 'Orbit Racers', 'Hollow Tide'];
const ARTISTS = ['Taylor Swift', 'Beyoncé', 'Drake', 'Billie Eilish', 'Bad Bunny', 'Olivia Rodrigo', 'The Weeknd'];
const EUROVISION = ['Sweden', 'Italy', 'Ukraine', 'France', 'Norway', 'Finland', 'Switzerland', 'Croatia'];
const CONFLICTS = ['Sudan', 'eastern Congo', 'Myanmar', 'Yemen', 'the Sahel'];
const EU_CANDIDATES = ['Ukraine', 'Moldova', 'Montenegro', 'Serbia', 'Albania', 'North Macedonia', 'Georgia'];
const UN_TOPICS = ['climate security', 'AI in warfare', 'maritime security', 'humanitarian access'];
const CURRENCIES: Array<[string, number[]]> = [
  ['Japanese yen', [145, 150, 155, 160, 165]],
  ['Turkish lira', [38, 40, 42, 45, 48]],
  ['Indian rupee', [84, 86, 88, 90]],
  ['Argentine peso', [1000, 1200, 1500, 1800]],
  ['Brazilian real', [5.5, 6, 6.5]],
];
const REFERENDA = ['Scotland', 'Italy', 'Switzerland', 'Ireland', 'Chile', 'New Caledonia'];
/**
 * Each city's typical daily high (°F) by month, from its climate normals (rounded), and whether it sees snow. A
 * temperature question asks about a level within CLIMATE_BAND of the month's normal, so no question asks whether Mumbai
 * reaches 36 °F.
 */
export const CITIES: Array<[string, boolean, number[]]> = [
  ['New York', true, [39, 42, 50, 62, 72, 80, 85, 84, 76, 65, 54, 44]],
  ['London', true, [47, 48, 52, 57, 63, 69, 73, 72, 66, 59, 52, 48]],
  ['Chicago', true, [32, 36, 47, 59, 70, 80, 84, 82, 75, 62, 48, 36]],
  ['Tokyo', true, [49, 50, 56, 65, 72, 77, 84, 87, 80, 71, 62, 53]],
  ['Paris', true, [45, 48, 54, 60, 67, 73, 78, 77, 70, 61, 52, 46]],
  ['Miami', false, [76, 78, 80, 83, 87, 89, 91, 91, 89, 86, 81, 78]],
  ['Seattle', true, [48, 51, 55, 59, 66, 71, 77, 77, 71, 60, 52, 47]],
  ['Sydney', false, [79, 79, 77, 73, 68, 64, 63, 65, 69, 72, 75, 78]],
  ['Toronto', true, [30, 33, 41, 54, 66, 75, 80, 79, 71, 58, 46, 35]],
  ['Berlin', true, [37, 40, 48, 58, 67, 72, 76, 75, 67, 56, 45, 38]],
  ['Los Angeles', false, [68, 69, 70, 73, 74, 78, 83, 84, 83, 79, 73, 68]],
  ['Mumbai', false, [86, 87, 90, 91, 93, 90, 86, 85, 87, 91, 92, 89]],
];
/** How far (°F) a temperature question's level lies from the month's normal high, at most. */
export const CLIMATE_BAND = 10;
export const STOCKS: Array<[string, number]> = [
  ['Apple', 230],
  ['Nvidia', 180],
  ['Microsoft', 480],
  ['Tesla', 350],
  ['Amazon', 220],
  ['Alphabet', 200],
  ['Meta', 700],
  ['Netflix', 1100],
  ['Intel', 25],
  ['AMD', 160],
  ['Boeing', 200],
  ['Disney', 110],
];
/** A stock question's level: the share's reference price times one of these. */
export const STOCK_LEVELS = [0.8, 0.9, 1, 1.1, 1.2];
const MEGACAPS = ['Apple', 'Nvidia', 'Microsoft', 'Alphabet', 'Amazon'];
const IPOS = ['Stripe', 'Databricks', 'Revolut', 'Shein', 'Canva', 'Klarna', 'Discord', 'Chime'];
const DRUG_AREAS = ['obesity', "Alzheimer's", 'ALS', 'sickle cell', 'migraine'];

export const CATEGORIES = ['Politics', 'Sports', 'Crypto', 'Economics', 'Science & Tech', 'Culture', 'World', 'Weather', 'Business', 'Health'] as const;
export type Category = (typeof CATEGORIES)[number];

export const TEMPLATES: Record<Category, Template[]> = {
  Politics: [
    (d, w) => ({
      question: `Will ${pick(COUNTRIES, d(1))} hold a snap general election ${w.by}?`,
      rule: rule(`a snap general election is held ${w.by}`, 'official electoral commission announcements'),
    }),
    (d, w) => {
      const c = pick(COUNTRIES, d(1));
      const b = pick(BILLS, d(2));
      return {
        question: `Will ${c}'s parliament pass the ${b} bill ${w.by}?`,
        rule: rule(`the ${b} bill passes its final parliamentary vote ${w.by}`, `${c}'s official parliamentary record`),
      };
    },
    (d, w) => {
      const p = pick(POSTS, d(1));
      return {
        question: `Will the US Senate confirm the nominee for ${p} ${w.by}?`,
        rule: rule(`the Senate confirms a nominee for ${p} ${w.by}`, 'the Senate roll-call record'),
      };
    },
    (_d, w) => ({
      question: `Will there be a US federal government shutdown ${w.by}?`,
      rule: rule(`a lapse in appropriations causes a federal shutdown ${w.by}`, 'the Office of Management and Budget'),
    }),
    (d, w) => {
      const pct = pick(steps(38, 52, 1), d(1));
      return {
        question: `Will the President's approval rating be at or above ${pct}% ${w.on}?`,
        rule: rule(`the polling average shows approval of at least ${pct}% ${w.on}`, 'a major polling average'),
      };
    },
    on(CLOSES.usElection, (d, w) => {
      const s = pick(US_STATES, d(1));
      return {
        question: `Will the incumbent party win the ${s} special election ${w.on}?`,
        rule: rule(`the incumbent party's candidate is declared the winner of the ${s} special election held ${w.on}`, 'certified state results'),
      };
    }),
    (d, w) => {
      const c = pick(COUNTRIES, d(1));
      return {
        question: `Will ${c}'s head of government leave office ${w.by}?`,
        rule: rule(`${c}'s head of government resigns or is replaced ${w.by}`, 'official government announcements'),
      };
    },
  ],
  Sports: [
    on(CLOSES.leagueMatch, (d, w) => {
      const [club, league] = pick(CLUBS, d(1));
      const rivals = CLUBS.filter(([c, l]) => l === league && c !== club);
      const [other] = pick(rivals.length ? rivals : CLUBS, d(2));
      return {
        question: `Will ${club} beat ${other} ${w.on}?`,
        rule: rule(`${club} win the match against ${other} played ${w.on} in regular time`, 'the official match report'),
      };
    }),
    on(CLOSES.leagueMatch, (d, w) => {
      const [club, league] = pick(CLUBS, d(1));
      const rivals = CLUBS.filter(([c, l]) => l === league && c !== club);
      const [other] = pick(rivals.length ? rivals : CLUBS, d(2));
      const goals = pick([1, 2, 3], d(3));
      return {
        question: `Will ${club} vs. ${other} have more than ${goals}.5 goals ${w.on}?`,
        rule: rule(`more than ${goals}.5 goals are scored in regular time`, 'the official match report'),
      };
    }),
    on(CLOSES.nbaDay, (d, w) => {
      const t = pick(NBA, d(1));
      return {
        question: `Will the ${t} hold a top-six playoff seed ${w.on}?`,
        rule: rule(`the ${t} are in the top six of their conference's standings ${w.on}`, 'the NBA standings'),
      };
    }),
    (_d, w) => ({
      question: `Will a men's 100m world record be set ${w.by}?`,
      rule: rule(`a ratified men's 100m world record is run ${w.by}`, 'World Athletics'),
    }),
  ],
  Crypto: [
    (d, w) => {
      const px = pick(steps(70_000, 180_000, 5_000), d(1));
      return {
        question: `Will Bitcoin close above $${num(px)} ${w.on}?`,
        rule: rule(`the BTC/USD daily close is above $${num(px)} ${w.on}`, 'a major exchange BTC/USD daily candle'),
      };
    },
    (d, w) => {
      const px = pick(steps(2_000, 9_000, 250), d(1));
      return {
        question: `Will Ethereum trade above $${num(px)} ${w.by}?`,
        rule: rule(`ETH/USD trades above $${num(px)} at any time ${w.by}`, 'a major exchange ETH/USD price'),
      };
    },
    (d, w) => {
      const px = pick(steps(100, 500, 10), d(1));
      return {
        question: `Will Solana reach $${num(px)} ${w.by}?`,
        rule: rule(`SOL/USD trades at or above $${num(px)} ${w.by}`, 'a major exchange SOL/USD price'),
      };
    },
    (d, w) => {
      const c = pick(ALTCOINS, d(1));
      return {
        question: `Will the SEC approve a spot ${c} ETF ${w.by}?`,
        rule: rule(`the SEC approves a spot ${c} exchange-traded fund ${w.by}`, 'SEC filings'),
      };
    },
    (d, w) => {
      const pct = pick(steps(50, 65, 1), d(1));
      return {
        question: `Will Bitcoin dominance be above ${pct}% ${w.on}?`,
        rule: rule(`Bitcoin's share of total crypto market cap is above ${pct}% ${w.on}`, 'a major crypto market data site'),
      };
    },
    (d, w) => {
      const s = pick(STABLECOINS, d(1));
      return {
        question: `Will ${s} trade below $0.99 ${w.by}?`,
        rule: rule(`${s} trades below $0.99 on a major exchange at any time ${w.by}`, 'major exchange prices'),
      };
    },
    (d, w) => {
      const n = pick(steps(2.5, 6, 0.5), d(1));
      return {
        question: `Will the total crypto market cap exceed $${n} trillion ${w.by}?`,
        rule: rule(`total crypto market capitalisation exceeds $${n} trillion ${w.by}`, 'a major crypto market data site'),
      };
    },
    (d, w) => {
      const px = pick([0.25, 0.3, 0.4, 0.5, 0.75, 1, 1.5], d(1));
      return { question: `Will Dogecoin hit $${px} ${w.by}?`, rule: rule(`DOGE/USD trades at or above $${px} ${w.by}`, 'a major exchange DOGE/USD price') };
    },
  ],
  Economics: [
    on(CLOSES.fomc, (_d, w) => ({
      question: `Will the Fed cut interest rates at its meeting ending ${w.date}?`,
      rule: rule(`the FOMC lowers the federal funds target range at its meeting ending ${w.date}`, 'the Federal Reserve'),
    })),
    on(CLOSES.cpiRelease, (d, w) => {
      const x = pick(steps(2, 4, 0.1), d(1)).toFixed(1);
      return {
        question: `Will US CPI inflation be above ${x}% in the report released ${w.on}?`,
        rule: rule(`year-over-year CPI in the release published ${w.on} is above ${x}%`, 'the Bureau of Labor Statistics'),
      };
    }),
    on(CLOSES.jobsReport, (d, w) => {
      const x = pick(steps(3.8, 5.2, 0.1), d(1)).toFixed(1);
      return {
        question: `Will the US unemployment rate be ${x}% or higher in the jobs report released ${w.on}?`,
        rule: rule(`the unemployment rate in the jobs report published ${w.on} is at least ${x}%`, 'the Bureau of Labor Statistics'),
      };
    }),
    (_d, w) => ({
      question: `Will the ECB lower its deposit rate ${w.by}?`,
      rule: rule(`the ECB announces a deposit facility rate cut ${w.by}`, 'the European Central Bank'),
    }),
    on(CLOSES.gdpRelease, (d, w) => {
      const x = pick(steps(0.5, 3.5, 0.5), d(1)).toFixed(1);
      return {
        question: `Will the GDP estimate released ${w.on} show US growth above ${x}%?`,
        rule: rule(`the annualised real GDP growth in the estimate published ${w.on} exceeds ${x}%`, 'the Bureau of Economic Analysis'),
      };
    }),
    on(CLOSES.nyClose, (d, w) => {
      const x = pick(steps(3.5, 5.5, 0.25), d(1)).toFixed(2);
      return {
        question: `Will the 10-year Treasury yield close above ${x}% ${w.on}?`,
        rule: rule(`the 10-year Treasury yield closes above ${x}% ${w.on}`, 'US Treasury daily yield data'),
      };
    }),
    (_d, w) => ({
      question: `Will the US enter a recession ${w.by}?`,
      rule: rule(`the NBER dates the start of a recession on or before ${w.by.slice(3)}`, 'NBER announcements'),
    }),
    on(CLOSES.lbma, (d, w) => {
      const g = pick(steps(2_400, 4_200, 50), d(1));
      return { question: `Will gold close above $${num(g)} an ounce ${w.on}?`, rule: rule(`spot gold closes above $${num(g)} ${w.on}`, 'the LBMA gold price') };
    }),
    (d, w) => {
      const o = pick(steps(60, 110, 5), d(1));
      return {
        question: `Will WTI crude oil trade above $${o} a barrel ${w.by}?`,
        rule: rule(`front-month WTI trades above $${o} ${w.by}`, 'NYMEX settlement prices'),
      };
    },
    on(CLOSES.boe, (_d, w) => ({
      question: `Will the Bank of England cut rates at its meeting ${w.on}?`,
      rule: rule(`the Bank Rate is lowered at the meeting held ${w.on}`, 'the Bank of England'),
    })),
  ],
  'Science & Tech': [
    (_d, w) => ({
      question: `Will SpaceX's Starship complete an orbital flight ${w.by}?`,
      rule: rule(`a Starship vehicle completes at least one full orbit ${w.by}`, 'SpaceX and independent tracking'),
    }),
    (d, w) => {
      const lab = pick(AI_LABS, d(1));
      return {
        question: `Will ${lab} release a new flagship AI model ${w.by}?`,
        rule: rule(`${lab} makes a new flagship model generally available ${w.by}`, `${lab}'s official announcements`),
      };
    },
    (_d, w) => ({
      question: `Will Apple announce a foldable iPhone ${w.by}?`,
      rule: rule(`Apple officially announces a foldable iPhone ${w.by}`, 'Apple newsroom'),
    }),
    (d, w) => {
      const m = pick(MISSIONS, d(1));
      return { question: `Will NASA launch ${m} ${w.by}?`, rule: rule(`${m} lifts off ${w.by}`, 'NASA') };
    },
    (_d, w) => ({
      question: `Will a room-temperature superconductor be independently replicated ${w.by}?`,
      rule: rule(
        `a peer-reviewed independent replication of an ambient-pressure room-temperature superconductor is published ${w.by}`,
        'peer-reviewed journals',
      ),
    }),
    (d, w) => {
      const n = pick([50, 100, 200, 500], d(1));
      return {
        question: `Will a quantum computer with more than ${n} logical qubits be announced ${w.by}?`,
        rule: rule(`a company or lab announces a machine with more than ${n} error-corrected logical qubits ${w.by}`, 'official announcements'),
      };
    },
    (d, w) => {
      const n = pick([10, 15, 20, 30], d(1));
      return {
        question: `Will a humanoid robot go on sale to consumers for under $${n},000 ${w.by}?`,
        rule: rule(`a humanoid robot is available to order by consumers for under $${n},000 ${w.by}`, 'manufacturer announcements'),
      };
    },
  ],
  Culture: [
    on(CLOSES.weekendBoxOffice, (d, w) => {
      const f = pick(FILMS, d(1));
      const n = pick(steps(40, 200, 10), d(2));
      return {
        question: `Will "${f}" gross more than $${n} million in the weekend ending ${w.date}?`,
        rule: rule(`the domestic weekend gross of "${f}" for the weekend ending ${w.date} exceeds $${n} million`, 'Box Office Mojo'),
      };
    }),
    (d, w) => {
      const a = pick(ARTISTS, d(1));
      return { question: `Will ${a} release a new studio album ${w.by}?`, rule: rule(`${a} releases a new studio album ${w.by}`, 'official release listings') };
    },
    (d, w) => {
      const s = pick(SHOWS, d(1));
      return {
        question: `Will "${s}" be renewed for another season ${w.by}?`,
        rule: rule(`"${s}" is officially renewed ${w.by}`, "the network's announcements"),
      };
    },
    (d, w) => {
      const g = pick(GAMES, d(1));
      const n = pick([1, 2, 3, 5], d(2));
      return {
        question: `Will "${g}" pass ${n} million copies sold ${w.by}?`,
        rule: rule(`"${g}" has sold more than ${n} million copies ${w.by}`, "the publisher's figures"),
      };
    },
  ],
  World: [
    (d, w) => {
      const a = pick(COUNTRIES, d(1));
      const b = pick(
        COUNTRIES.filter((c) => c !== a),
        d(2),
      );
      return {
        question: `Will ${a} and ${b} sign a free trade agreement ${w.by}?`,
        rule: rule(`${a} and ${b} sign a bilateral free trade agreement ${w.by}`, 'official government announcements'),
      };
    },
    (d, w) => {
      const r = pick(CONFLICTS, d(1));
      return {
        question: `Will a ceasefire be announced in ${r} ${w.by}?`,
        rule: rule(`the main parties announce a ceasefire in ${r} ${w.by}`, 'major news agencies'),
      };
    },
    (d, w) => {
      const c = pick(EU_CANDIDATES, d(1));
      return {
        question: `Will the EU formally open a new accession chapter with ${c} ${w.by}?`,
        rule: rule(`the EU opens at least one new negotiating cluster or chapter with ${c} ${w.by}`, 'the Council of the EU'),
      };
    },
    (d, w) => {
      const t = pick(UN_TOPICS, d(1));
      return {
        question: `Will the UN Security Council adopt a resolution on ${t} ${w.by}?`,
        rule: rule(`the Security Council adopts a resolution on ${t} ${w.by}`, 'UN press releases'),
      };
    },
    (d, w) => {
      const [name, levels] = pick(CURRENCIES, d(1));
      const x = pick(levels, d(2));
      return {
        question: `Will the ${name} weaken past ${num(x)} per US dollar ${w.by}?`,
        rule: rule(`the ${name} trades weaker than ${num(x)} per dollar ${w.by}`, 'central bank reference rates'),
      };
    },
    (d, w) => {
      const p = pick(REFERENDA, d(1));
      return {
        question: `Will ${p} hold a referendum on constitutional change ${w.by}?`,
        rule: rule(`${p} holds a referendum on constitutional change ${w.by}`, 'official electoral authorities'),
      };
    },
  ],
  Weather: [
    (d, w) => {
      const [city] = pick(CITIES, d(1));
      const mm = pick([1, 5, 10, 20], d(2));
      return {
        question: `Will ${city} record more than ${mm} mm of rain ${w.on}?`,
        rule: rule(`the official station for ${city} records more than ${mm} mm of precipitation ${w.on}`, 'the national weather service'),
      };
    },
    (d, w) => {
      const [city, , highs] = pick(CITIES, d(1));
      const f = highs[w.monthIndex]! + pick([-CLIMATE_BAND, -6, -2, 2, 6, CLIMATE_BAND], d(2));
      return {
        question: `Will the high temperature in ${city} reach ${f}°F ${w.on}?`,
        rule: rule(`the official high in ${city} is at least ${f}°F ${w.on}`, 'the national weather service'),
      };
    },
    (d, w) => {
      const cat = pick([3, 4, 5], d(1));
      return {
        question: `Will a Category ${cat} or stronger hurricane make US landfall ${w.by}?`,
        rule: rule(`a hurricane of Category ${cat}+ makes landfall in the US ${w.by}`, 'the National Hurricane Center'),
      };
    },
    (d, w) => {
      const snowy = CITIES.filter(([, snows]) => snows).map(([c]) => c);
      const city = pick(snowy, d(1));
      return {
        question: `Will ${city} see measurable snowfall ${w.by}?`,
        rule: rule(`at least 0.1 inch of snow is measured in ${city} ${w.by}`, 'the national weather service'),
      };
    },
    (_d, w) => ({
      question: `Will ${w.date} be the warmest ${w.month} day on record globally?`,
      rule: rule(`${w.date} ranks as the warmest ${w.month} day in the global daily temperature record`, 'the Copernicus daily climate data'),
    }),
  ],
  Business: [
    on(CLOSES.nyClose, (d, w) => {
      const [co, base] = pick(STOCKS, d(1));
      const px = Math.max(5, Math.round((base * pick(STOCK_LEVELS, d(2))) / 5) * 5);
      return {
        question: `Will ${co} stock close above $${num(px)} ${w.on}?`,
        rule: rule(`${co} shares close above $${num(px)} at the exchange's close ${w.on}`, 'the listing exchange'),
      };
    }),
    (d, w) => {
      const co = pick(MEGACAPS, d(1));
      const n = pick([3, 4, 5, 6], d(2));
      return {
        question: `Will ${co}'s market cap exceed $${n} trillion ${w.by}?`,
        rule: rule(`${co}'s market capitalisation closes above $${n} trillion on any trading day ${w.by}`, 'the listing exchange'),
      };
    },
    (d, w) => {
      const co = pick(IPOS, d(1));
      return { question: `Will ${co} go public ${w.by}?`, rule: rule(`${co} shares begin trading on a public exchange ${w.by}`, 'exchange listings') };
    },
    (d, w) => {
      const [co] = pick(STOCKS, d(1));
      const n = pick([1_000, 2_000, 5_000, 10_000], d(2));
      return {
        question: `Will ${co} announce layoffs of at least ${num(n)} employees ${w.by}?`,
        rule: rule(`${co} announces job cuts of at least ${num(n)} ${w.by}`, 'company filings and statements'),
      };
    },
  ],
  Health: [
    (_d, w) => ({
      question: `Will the WHO declare a new public health emergency of international concern ${w.by}?`,
      rule: rule(`the WHO declares a new PHEIC ${w.by}`, 'the World Health Organization'),
    }),
    (d, w) => {
      const area = pick(DRUG_AREAS, d(1));
      return {
        question: `Will the FDA approve a new ${area} drug ${w.by}?`,
        rule: rule(`the FDA approves a new molecular entity for ${area} ${w.by}`, 'FDA approvals'),
      };
    },
    (d, w) => {
      const n = pick([500, 1_000, 2_000, 3_000], d(1));
      return {
        question: `Will the CDC's ${w.year} US measles count pass ${num(n)} cases ${w.by}?`,
        rule: rule(`the CDC's count of US measles cases for ${w.year} exceeds ${num(n)} ${w.by}`, 'the CDC'),
      };
    },
  ],
};

/** The template of one market, from two draws: its category, then one of the category's templates. */
export function templateFor(d: Draw): { category: Category; template: Template } {
  const category = pick(CATEGORIES, d(101));
  return { category, template: pick(TEMPLATES[category], d(102)) };
}

/** Every template with its category, in a fixed order: where a market looks for another question when its own is taken. */
export const TEMPLATE_LIST: ReadonlyArray<{ category: Category; template: Template }> = CATEGORIES.flatMap((category) =>
  TEMPLATES[category].map((template) => ({ category, template })),
);

/** The question of one market: its template's text with the fill-ins from the market's draws and its end date. */
export function questionFor(d: Draw, end: Date, short: boolean): Question & { category: Category } {
  const { category, template } = templateFor(d);
  return { category, ...template((i) => d(200 + i), whenOf(end, short)) };
}

/**
 * Events whose markets are mutually exclusive (issue 49): one market per listed candidate and one for the rest of the
 * field, so exactly one resolves YES. At speed 1 each event is one real occasion of its kind (a Eurovision final, a
 * Super Bowl, a Sunday's league table…) from its calendar, listed once, some days to months ahead, and its markets end
 * when it begins; at other speeds (compressed time) an event lasts `lifeDays` divided by the speed.
 */
export interface EventKind {
  name: string;
  category: Category;
  lifeDays: number;
  calendar: {
    /** Whether the kind's occasion falls on a day (a UTC midnight in ms). */
    isDay(dayMs: number): boolean;
    /** The UTC hour it begins at on that day: its markets end then. */
    hour(dayMs: number): number;
    /** How many days ahead of the occasion its event is listed: drawn between these. */
    leadDays: readonly [number, number];
    /** The share of its occasions the venue lists. */
    share: number;
  };
  /** Candidates to draw the listed ones from (in a random order). */
  candidates(d: Draw): readonly string[];
  question(candidate: string, w: When): Question;
  /** The last market: every candidate not listed. */
  field(listed: readonly string[], w: When): Question;
}

const orList = (xs: readonly string[]): string => (xs.length <= 1 ? xs.join('') : `${xs.slice(0, -1).join(', ')} or ${xs[xs.length - 1]}`);
const LEAGUES = [...new Set(CLUBS.map(([, l]) => l))];
const isWeekday = (dayMs: number) => CLOSES.nyClose(dayMs) !== null;

export const EVENT_KINDS: readonly EventKind[] = [
  {
    name: 'eurovision',
    category: 'Culture',
    lifeDays: 21,
    calendar: { isDay: isEurovisionFinal, hour: () => 19, leadDays: [20, 75], share: 1 },
    candidates: () => EUROVISION,
    question: (c, w) => ({
      question: `Will ${c} win the Eurovision Song Contest final held ${w.on}?`,
      rule: rule(`${c}'s entry wins the Eurovision Song Contest final held ${w.on}`, 'the EBU'),
    }),
    field: (listed, w) => ({
      question: `Will a country other than ${orList(listed)} win the Eurovision Song Contest final held ${w.on}?`,
      rule: rule(`the winning entry of the final held ${w.on} is from none of ${orList(listed)}`, 'the EBU'),
    }),
  },
  ...LEAGUES.map((league): EventKind => ({
    name: `league-leader:${league}`,
    category: 'Sports',
    lifeDays: 35,
    calendar: { isDay: isLeagueTableSunday, hour: () => 12, leadDays: [7, 40], share: 0.12 },
    candidates: () => CLUBS.filter(([, l]) => l === league).map(([c]) => c),
    question: (c, w) => ({
      question: `Will ${c} lead ${league} after the matches played ${w.on}?`,
      rule: rule(`${c} are first in the table of ${league} after the matches played ${w.on}`, 'the official league table'),
    }),
    field: (listed, w) => ({
      question: `Will a club other than ${orList(listed)} lead ${league} after the matches played ${w.on}?`,
      rule: rule(`none of ${orList(listed)} is first in the table of ${league} after the matches played ${w.on}`, 'the official league table'),
    }),
  })),
  {
    name: 'nba-best-record',
    category: 'Sports',
    lifeDays: 60,
    calendar: { isDay: isNbaStandingsSunday, hour: () => 22, leadDays: [14, 90], share: 0.5 },
    candidates: () => NBA,
    question: (c, w) => ({
      question: `Will the ${c} have the NBA's best record ${w.on}?`,
      rule: rule(`the ${c} have the best win percentage in the NBA after the games played ${w.on} (ties: the league's tiebreak)`, 'the NBA standings'),
    }),
    field: (listed, w) => ({
      question: `Will a team other than the ${orList(listed)} have the NBA's best record ${w.on}?`,
      rule: rule(`none of the ${orList(listed)} has the NBA's best record after the games played ${w.on}`, 'the NBA standings'),
    }),
  },
  {
    name: 'super-bowl',
    category: 'Sports',
    lifeDays: 120,
    calendar: { isDay: isSuperBowl, hour: () => 23, leadDays: [40, 160], share: 1 },
    candidates: () => NFL,
    question: (c, w) => ({
      question: `Will the ${c} win the Super Bowl played ${w.on}?`,
      rule: rule(`the ${c} win the Super Bowl played ${w.on}`, 'the NFL'),
    }),
    field: (listed, w) => ({
      question: `Will a team other than the ${orList(listed)} win the Super Bowl played ${w.on}?`,
      rule: rule(`none of the ${orList(listed)} wins the Super Bowl played ${w.on}`, 'the NFL'),
    }),
  },
  {
    name: 'best-picture',
    category: 'Culture',
    lifeDays: 45,
    calendar: { isDay: isOscars, hour: () => 23, leadDays: [20, 60], share: 1 },
    candidates: () => FILMS,
    question: (c, w) => ({
      question: `Will "${c}" win Best Picture at the Academy Awards held ${w.on}?`,
      rule: rule(`"${c}" wins Best Picture at the Academy Awards ceremony held ${w.on}`, 'the Academy'),
    }),
    field: (listed, w) => ({
      question: `Will a film other than ${orList(listed.map((f) => `"${f}"`))} win Best Picture at the Academy Awards held ${w.on}?`,
      rule: rule(`none of the listed films wins Best Picture at the Academy Awards ceremony held ${w.on}`, 'the Academy'),
    }),
  },
  {
    name: 'most-valuable',
    category: 'Business',
    lifeDays: 7,
    calendar: { isDay: isWeekday, hour: nyCloseHourUtc, leadDays: [3, 12], share: 0.12 },
    candidates: () => MEGACAPS,
    question: (c, w) => ({
      question: `Will ${c} be the world's most valuable company at the close ${w.on}?`,
      rule: rule(`${c} has the largest market capitalisation of any listed company at the New York close ${w.on}`, 'exchange data'),
    }),
    field: (listed, w) => ({
      question: `Will a company other than ${orList(listed)} be the world's most valuable at the close ${w.on}?`,
      rule: rule(`none of ${orList(listed)} has the largest market capitalisation at the New York close ${w.on}`, 'exchange data'),
    }),
  },
];
