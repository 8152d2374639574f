/**
 * Instruction patterns, written against the folded forms of `normalize.ts` (lower case, no
 * accents, ß as ss), in English, German, French and Spanish. Each names what it catches, so a
 * quarantine says why.
 */

export type InstructionKind =
  'override' | 'role_hijack' | 'prompt_markup' | 'exfiltration' | 'policy_update' | 'secrecy' | 'command';

export interface InstructionPattern {
  kind: InstructionKind;
  pattern: RegExp;
}

/** Where an imperative starts: a sentence start, or a word that leads into one ("and email …"). */
const LEAD = String.raw`(?:^|[.!?:;\n"'(>\-]\s*|\b(?:please|and|then|now|also|immediately|always|must|should|bitte|und|dann|sofort|jetzt|immer|veuillez|merci de|et|puis|ensuite|toujours|por favor|y|luego|ahora|siempre|debe)\s+)`;

const SEND_VERBS = String.raw`(?:send|e-?mail|mail|forward|upload|post|transfer|exfiltrate|share|leak|copy|export|dump|sende|senden|schick|schicke|schicken|leite|leiten|weiterleiten|ubermittle|ubermitteln|maile|envoie|envoyez|envoyer|transfere|transferez|transferer|partage|partagez|envia|envie|enviar|reenvia|reenviar|manda|mande|mandar|comparte|compartir)`;

/** An e-mail address or a URL: where data would go. */
const DESTINATION = String.raw`(?:[^\s@]+@[^\s@]+\.[a-z]{2,}|https?://\S+|ftp://\S+|\bwebhook\b)`;

const SENSITIVE_DATA = String.raw`(?:customers?|clients?|kunden\w*|users?|benutzer\w*|nutzer\w*|utilisateurs?|usuarios?|contacts?|kontakte|passwords?|passwort\w*|mots? de passe|contrasenas?|credentials?|zugangsdaten|identifiants|credenciales|secrets?|api ?keys?|tokens?|database|datenbank|base de donnees|base de datos|invoices?|rechnungen|factures?|facturas?|records?|files?|dateien|fichiers|archivos|data|daten|donnees|datos|emails?|list[ea]?n?|liste)`;

export const INSTRUCTION_PATTERNS: readonly InstructionPattern[] = [
  {
    kind: 'override',
    pattern:
      /\b(?:ignore|ignoring|disregard|forget|override|bypass|skip)\b.{0,40}\b(?:previous|prior|above|earlier|preceding|all|any|everything|every)\b.{0,30}\b(?:instructions?|rules?|prompts?|messages?|directions?|guidelines?|directives?|context|above|before)\b/,
  },
  {
    kind: 'override',
    pattern: /\b(?:disregard|ignore|forget)\b\s+(?:everything|all|anything)\s+(?:above|before|else|so far)\b/,
  },
  {
    kind: 'override',
    pattern:
      /\b(?:ignorier\w*|vergiss|vergessen|missachte\w*|uberschreib\w*)\b.{0,40}\b(?:anweisung\w*|instruktion\w*|regeln|befehle|vorgaben|anordnung\w*|alles (?:oben|davor|bisherige))/,
  },
  {
    kind: 'override',
    pattern:
      /\b(?:ignore[zr]?|oublie[zr]?|ne tenez pas compte|ne tiens pas compte|faites abstraction)\b.{0,40}\b(?:instructions?|consignes?|regles|directives?|tout ce qui precede)\b/,
  },
  {
    kind: 'override',
    pattern:
      /\b(?:ignora\w*|olvida\w*|descarta\w*|omite|omitir|haz caso omiso)\b.{0,40}\b(?:instrucciones|reglas|indicaciones|ordenes|directrices|todo lo anterior)\b/,
  },
  {
    kind: 'role_hijack',
    pattern:
      /\b(?:you are now|you're now|from now on,? you|pretend (?:to be|you are)|act as (?:an? |the )?(?:admin|administrator|root|developer|system|unrestricted|dan)\b|your new (?:task|role|instructions?|goal) (?:is|are)|new instructions?:|du bist (?:jetzt|nun|ab sofort)|ab (?:jetzt|sofort) (?:bist|wirst|sollst) du|neue anweisungs?:?|tu es maintenant|vous etes maintenant|a partir de maintenant,? (?:tu|vous)|nouvelles? instructions?|ahora eres|a partir de ahora,? (?:eres|tu|debes)|nuevas instrucciones)/,
  },
  {
    kind: 'prompt_markup',
    pattern:
      /(?:system prompt|developer message|developer mode|jailbreak|\bdan mode\b|<\|im_start\|>|<\|system\|>|\[\/?(?:system|inst)\]|#{2,}\s*(?:system|instruction)|<\/?system>|systemanweisung|invite systeme|mensaje del sistema)/,
  },
  { kind: 'exfiltration', pattern: new RegExp(String.raw`${LEAD}${SEND_VERBS}\b.{0,100}?${DESTINATION}`) },
  {
    kind: 'exfiltration',
    pattern: new RegExp(
      String.raw`${LEAD}${SEND_VERBS}\b.{0,40}\b${SENSITIVE_DATA}\b.{0,50}\b(?:to|at|an|nach|a|vers|al|para)\b`,
    ),
  },
  {
    kind: 'policy_update',
    pattern:
      /\b(?:policy|policies|rule|procedure|richtlinie\w*|regel|politique|procedure|politica|regla|norma)[\s-]*(?:update|change|updated|changed|revision|aktualisierung|anderung|geandert|mise a jour|modifiee|actualizacion|actualizada|cambio)\b/,
  },
  {
    kind: 'policy_update',
    pattern: /\b(?:new|updated|revised|neue|nouvelle|nueva)\s+(?:policy|richtlinie|politique|politica)\s*[:-]/,
  },
  {
    kind: 'policy_update',
    pattern:
      /\b(?:must|should|shall|always|from now on|now|mussen|muss|immer|doivent|doit|toujours|deben|debe|siempre)\b.{0,40}\b(?:wired|transferred|sent|paid|deposited|routed|redirected|uberwiesen|gesendet|vire[es]?|transfere[es]?|envoye[es]?|transferid[oa]s?|enviad[oa]s?|depositad[oa]s?)\b.{0,40}\b(?:account|iban|wallet|bitcoin|btc|crypto|konto|compte|cuenta|billetera)\b/,
  },
  {
    kind: 'secrecy',
    pattern:
      /\b(?:do not|don't|never|without) (?:tell|telling|inform|informing|mention|mentioning|reveal|revealing|notify|notifying|alert|alerting)\b.{0,30}\b(?:user|users|anyone|customer|human|operator|admin)\b|\b(?:sag|sage|erzahl|verrat)\w* (?:es )?(?:niemandem|dem (?:benutzer|nutzer|kunden) nichts?)|\bne (?:le )?(?:dis|dites) (?:rien|pas)\b.{0,30}\b(?:utilisateur|client|personne)|\bno (?:le )?(?:digas|menciones|informes|cuentes)\b.{0,30}\b(?:usuario|cliente|nadie)/,
  },
  {
    kind: 'command',
    pattern:
      /(?:\b(?:run|execute|exec|ausfuhren|executez|ejecuta)\b.{0,30}\b(?:curl|wget|rm -rf|bash -c|powershell|sudo|nc -e)\b|\bexecute (?:the following|this) (?:command|script)\b|\bcurl\s+\S+\s*\|\s*(?:ba)?sh\b)/,
  },
];

/**
 * Patterns tried on the squashed form (letters only), where spacing, dots and digits between
 * letters are gone: the core of an override still reads as one run of letters.
 */
export const SQUASHED_PATTERNS: readonly InstructionPattern[] = [
  {
    kind: 'override',
    pattern:
      /(?:ignore|disregard|forget)(?:all|any|the|your)*(?:previous|prior|above|earlier)(?:instructions|instruction|rules|prompts)/,
  },
  { kind: 'override', pattern: /(?:ignoriere|vergiss)(?:alle)?(?:vorherigen|bisherigen|obigen)?anweisungen/ },
  { kind: 'override', pattern: /(?:ignorez|ignore|oubliez)(?:toutes)?(?:les)?(?:instructions|consignes)precedentes/ },
  { kind: 'override', pattern: /(?:ignora|olvida)(?:todas)?(?:las)?instrucciones(?:anteriores|previas)/ },
];
