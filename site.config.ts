import { defineSite } from 'content-index';

export default defineSite({
  site: 'https://example.com/',
  images: 'https://images.example.com/',
  name: 'Código y Neuronas',
  // One description per language: each llms.txt opens with its own (a plain string would be Spanish only).
  description: {
    es: 'Artículos, proyectos y consejos sobre inteligencia artificial, aprendizaje automático y programación, en español, inglés y portugués.',
    en: 'Posts, projects and tips on artificial intelligence, machine learning and programming, in Spanish, English and Portuguese.',
    'pt-br':
      'Artigos, projetos e dicas sobre inteligência artificial, aprendizado de máquina e programação, em espanhol, inglês e português.',
  },
  sections: [
    { name: 'Blog', url: '/blog/' },
    { name: 'Proyectos', url: '/proyectos/' },
    { name: 'Consejos', url: '/consejos/' },
  ],
  // The sample site has no home page of its own: / lists what is served.
  landingPage: true,
  // robots.txt and the logo, published into public/ as they are.
  static: 'static',
  // /.well-known/ai-plugin.json; every key has a default (see docs/discovery.md).
  aiPlugin: {
    nameForHuman: 'Código y Neuronas',
    nameForModel: 'codigo_y_neuronas',
    descriptionForHuman: 'Artículos, proyectos y consejos sobre IA, aprendizaje automático y programación.',
    logoUrl: '/logo.png',
    contactEmail: 'hola@example.com',
    legalInfoUrl: '/aviso-legal/',
  },
});
